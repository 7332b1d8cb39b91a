// Run a Python script on MicroPython 1.27 (the WebAssembly port, a 32-bit VM like the
// RP2040's), with folders of this machine copied into the VM's file system.
//
//   node run.mjs [--heap BYTES] [--pipe IN_FD,OUT_FD] [--mount HOST_DIR:VM_DIR]... SCRIPT [ARG...]
//
// Every mount is copied file by file (.py, .mpy and .txt files; __pycache__ skipped), so
// the script imports from it as the board would from its drive. SCRIPT runs as __main__
// with sys.argv = [SCRIPT, ARG...]. With --pipe the script can `import hostpipe` and
// send requests to the test on the other end of two pipes (IN_FD is read, OUT_FD
// written), each message a 4-byte big-endian length and its bytes: hostpipe.call(text)
// -> text, or, without touching the heap, hostpipe.setup(requests, answers, size) once
// and then hostpipe.exchange(length) -> answer length (see below). A call blocks until
// the answer comes, as an SPI transfer or a USB read does on the board.
//
// MicroPython's WebAssembly port collects garbage only when control is back in JavaScript
// (gc.collect() asks for a collection that then runs); a script that wants the heap's
// true contents defines phase() in __main__: after the script, phase() is called again
// and again, each call from JavaScript, until it returns False. Between two calls
// nothing of Python is on the stack, so a collection asked for runs then.
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
    const exchange = (body) => {
        const head = Buffer.alloc(4);
        head.writeUInt32BE(body.length);
        fs.writeSync(outFd, Buffer.concat([head, body]));
        return readExactly(readExactly(4).readUInt32BE(0));
    };
    // Two buffers of the script's, by address (uctypes.addressof): requests are read
    // from the one and answers written into the other, so that the VM's heap sees
    // nothing of the traffic (a str crossing into Python would be garbage).
    let outAddress = 0;
    let inAddress = 0;
    let size = 0;
    const memory = mp._module;
    mp.registerJsModule("hostpipe", {
        call: (text) => exchange(Buffer.from(String(text), "utf8")).toString("utf8"),
        setup: (requests, answers, bytes) => {
            outAddress = requests;
            inAddress = answers;
            size = bytes;
            return 0;
        },
        exchange: (length) => {
            const request = Buffer.alloc(length);
            for (let i = 0; i < length; i++) request[i] = memory.getValue(outAddress + i, "i8") & 0xff;
            const answer = exchange(request);
            if (answer.length > size) throw new Error(`hostpipe: an answer of ${answer.length} bytes`);
            for (let i = 0; i < answer.length; i++) memory.setValue(inAddress + i, answer[i], "i8");
            return answer.length;
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
        "exec(_code)\n" +
        "del _code\n",
    );
    if (mp.globals.get("phase") !== undefined) {
        do {
            // Each call returns to JavaScript, where a requested collection runs.
            mp.runPython("_phase_result = phase()");
        } while (mp.globals.get("_phase_result"));
    }
} catch (error) {
    process.stderr.write(error && error.message ? error.message : String(error));
    process.stderr.write("\n");
    process.exitCode = 1;
}
