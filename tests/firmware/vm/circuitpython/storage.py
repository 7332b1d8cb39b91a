"""storage: boot.py remounts the drive; the VM only records how."""

mounted = []


def remount(path, readonly=False, disable_concurrent_write_protection=False):
    mounted.append((path, readonly))
