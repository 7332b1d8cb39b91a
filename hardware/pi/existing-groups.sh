#!/bin/sh
# Print those of the named groups that exist on this machine, space-separated.
# install.sh adds the table's user to them and writes them into the systemd unit's
# SupplementaryGroups=: systemd refuses to start a unit that names a group this machine
# does not have (spi and gpio exist on Raspberry Pi OS, not on every Debian).
found=""
for group in "$@"; do
    if getent group "$group" >/dev/null 2>&1; then
        found="${found:+$found }$group"
    fi
done
echo "$found"
