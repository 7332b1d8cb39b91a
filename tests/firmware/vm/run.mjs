// Run a Python script on MicroPython 1.27 (the WebAssembly port, a 32-bit VM like the
// RP2040's), with folders of this machine copied into the VM's file system.
//
//   node run.mjs [--heap BYTES] [--pipe IN_FD,OUT_FD] [--mount HOST_DIR:VM_DIR]... SCRIPT [ARG...]
//
// Every mount is copied file by file (.py, .mpy and .txt files; __pycache__ skipped), so
// the script imports from it as the board would from its drive. SCRIPT runs as __main__
// with sys.argv = [SCRIPT, ARG...]. With --pipe the script can `import hostpipe` and
// call hostpipe.call(text) -> text: one request to the test on the other end of two
// pipes (IN_FD is read, OUT_FD written), each message a 4-byte big-endian length and
// UTF-8 text. The call blocks until the answer comes, as an SPI transfer or a USB read
// does on the board.
//
// Exit status: 0 when the script ended normally, 1 with the Python traceback on stderr
// when it raised, 2 for a usage error.

import fs from "node:fs";
import path from "node:path";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

function usage(message) {
    process.stderr.write(`run.mjs: ${message}\n`);
    process.exit(2);
}

const mounts = [];
let heap = 192 * 1024;
let pipe = null;
let rest = process.argv.slice(2);
while (rest.length && rest[0].startsWith("--")) {
    const [flag, value] = rest;
    if (value === undefined) usage(`${flag} needs a value`);
    if (flag === "--heap") heap = parseInt(value, 10);
    else if (flag === "--pipe") pipe = value.split(",").map((fd) => parseInt(fd, 10));
    else if (flag === "--mount") {
        const at = value.lastIndexOf(":");
        if (at <= 0) usage(`--mount ${value}: expected HOST_DIR:VM_DIR`);
        mounts.push([value.slice(0, at), value.slice(at + 1)]);
    } else usage(`unknown option ${flag}`);
    rest = rest.slice(2);
}
if (!rest.length) usage("no script given");
const [script, ...args] = rest;

const mp = await loadMicroPython({
    heapsize: heap,
    // Whole lines: a write per character would make long outputs slow.
    stdout: (line) => process.stdout.write(line + "\n"),
    stderr: (line) => process.stderr.write(line + "\n"),
});

function makeDirs(vmPath) {
    let sofar = "";
    for (const part of vmPath.split("/").filter(Boolean)) {
        sofar += "/" + part;
        if (!mp.FS.analyzePath(sofar).exists) mp.FS.mkdir(sofar);
    }
}

function copyTree(hostDir, vmDir) {
    makeDirs(vmDir);
    for (const entry of fs.readdirSync(hostDir, { withFileTypes: true })) {
        const hostPath = path.join(hostDir, entry.name);
        const vmPath = `${vmDir}/${entry.name}`;
        if (entry.isDirectory()) {
            if (entry.name !== "__pycache__" && entry.name !== "node_modules") copyTree(hostPath, vmPath);
        } else if (/\.(py|mpy|txt)$/.test(entry.name)) {
            mp.FS.writeFile(vmPath, fs.readFileSync(hostPath));
        }
    }
}

for (const [hostDir, vmDir] of mounts) copyTree(hostDir, vmDir);

if (pipe !== null) {
    const [inFd, outFd] = pipe;
    const readExactly = (count) => {
        const buffer = Buffer.alloc(count);
        let got = 0;
        while (got < count) {
            const n = fs.readSync(inFd, buffer, got, count - got, null);
            if (n === 0) throw new Error("hostpipe: the test closed the pipe");
            got += n;
        }
        return buffer;
    };
    mp.registerJsModule("hostpipe", {
        call: (text) => {
            const body = Buffer.from(String(text), "utf8");
            const head = Buffer.alloc(4);
            head.writeUInt32BE(body.length);
            fs.writeSync(outFd, Buffer.concat([head, body]));
            const length = readExactly(4).readUInt32BE(0);
            return readExactly(length).toString("utf8");
        },
    });
}

const source = fs.readFileSync(script, "utf8");
mp.globals.set("_run_source", source);
mp.globals.set("_run_argv", JSON.stringify([script, ...args]));
try {
    mp.runPython(
        "import sys, json\n" +
        "sys.argv.clear()\n" +
        "sys.argv.extend(json.loads(_run_argv))\n" +
        "del _run_argv\n" +
        "_code = compile(_run_source, sys.argv[0], 'exec')\n" +
        "del _run_source\n" +
        "exec(_code)\n",
    );
} catch (error) {
    process.stderr.write(error && error.message ? error.message : String(error));
    process.stderr.write("\n");
    process.exitCode = 1;
}
