#!/usr/bin/env bash
# Install the table on a Raspberry Pi, in one command (docs/hardware.md, "Bring-up"):
#
#   sudo hardware/pi/install.sh --config /home/pi/table.toml
#
# It installs the host software with its Pi extras into the repository's .venv,
# the udev rule (/dev/homeworlds-table), turns SPI on and raises spidev's
# transfer limit (for chains over 165 pixels), adds the user to the dialout,
# spi and gpio groups, and installs and enables the systemd service. Every step
# is idempotent: run it again after an update. A reboot is needed once, when
# SPI or the kernel command line changed (the script says so).
#
#   --config FILE   the table configuration the service plays with (required)
#   --user NAME     who runs the service (default: the user who ran sudo)
#   --no-service    install everything but the systemd unit
#
# It refuses to run anywhere but on a Raspberry Pi, and never runs in CI.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
MODEL_FILE="${HOMEWORLDS_MODEL_FILE:-/proc/device-tree/model}"
CONFIG=""
RUN_USER="${SUDO_USER:-}"
SERVICE=1

die() { echo "install.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
    case "$1" in
        --config) CONFIG="${2:-}"; shift 2 ;;
        --user) RUN_USER="${2:-}"; shift 2 ;;
        --no-service) SERVICE=0; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done

model="$(tr -d '\0' < "$MODEL_FILE" 2>/dev/null || true)"
case "$model" in
    "Raspberry Pi"*) ;;
    *) die "this is not a Raspberry Pi (${MODEL_FILE}: '${model:-missing}'); nothing was changed" ;;
esac
[ "$(id -u)" -eq 0 ] || die "run me with sudo: sudo $0 $*"
[ -n "$RUN_USER" ] && [ "$RUN_USER" != root ] || die "name the user who runs the table: --user NAME"
id "$RUN_USER" >/dev/null 2>&1 || die "no user named $RUN_USER"
if [ "$SERVICE" -eq 1 ]; then
    [ -n "$CONFIG" ] || die "name the table configuration: --config FILE (see hardware/table.example.toml)"
    CONFIG="$(realpath "$CONFIG")"
    [ -f "$CONFIG" ] || die "$CONFIG does not exist"
fi
reboot_needed=0

echo "== host software into $REPO/.venv"
command -v python3 >/dev/null || apt-get install -y python3
python3 -c 'import venv' 2>/dev/null || apt-get install -y python3-venv
sudo -u "$RUN_USER" make -C "$REPO" .venv/.installed
sudo -u "$RUN_USER" "$REPO/.venv/bin/python" -m pip install --quiet -e "$REPO[pi]"

echo "== udev rule: /dev/homeworlds-table"
install -m 0644 "$HERE/99-homeworlds-table.rules" /etc/udev/rules.d/99-homeworlds-table.rules
udevadm control --reload-rules
udevadm trigger --subsystem-match=tty

echo "== SPI for the LEDs"
if command -v raspi-config >/dev/null && [ "$(raspi-config nonint get_spi)" != 0 ]; then
    raspi-config nonint do_spi 0
    reboot_needed=1
fi
CMDLINE=/boot/firmware/cmdline.txt
[ -f "$CMDLINE" ] || CMDLINE=/boot/cmdline.txt
if [ -f "$CMDLINE" ] && ! grep -q 'spidev.bufsiz=' "$CMDLINE"; then
    # One line only: append to it.
    sed -i '1 s/$/ spidev.bufsiz=65536/' "$CMDLINE"
    reboot_needed=1
fi

# Only the groups this machine has: systemd will not start a unit naming another one.
GROUPS_FOUND="$("$HERE/existing-groups.sh" dialout spi gpio)"
echo "== groups for $RUN_USER: ${GROUPS_FOUND:-none of dialout, spi, gpio exist}"
for group in $GROUPS_FOUND; do
    usermod -aG "$group" "$RUN_USER"
done

if [ "$SERVICE" -eq 1 ]; then
    echo "== systemd service homeworlds-table"
    home="$(getent passwd "$RUN_USER" | cut -d: -f6)"
    state="$home/.local/share/homeworlds"
    sudo -u "$RUN_USER" mkdir -p "$state"
    sed -e "s|@REPO@|$REPO|g" -e "s|@USER@|$RUN_USER|g" -e "s|@CONFIG@|$CONFIG|g" \
        -e "s|@STATE_DIR@|$state|g" -e "s|@GROUPS@|$GROUPS_FOUND|g" "$HERE/homeworlds-table.service" \
        > /etc/systemd/system/homeworlds-table.service
    systemctl daemon-reload
    systemctl enable homeworlds-table.service
fi

echo "== done"
echo "check the table with: $REPO/.venv/bin/homeworlds doctor --config ${CONFIG:-FILE}"
if [ "$reboot_needed" -eq 1 ]; then
    echo "reboot once (sudo reboot): SPI or the kernel command line changed"
elif [ "$SERVICE" -eq 1 ]; then
    systemctl restart homeworlds-table.service
    echo "the table runs: journalctl -u homeworlds-table -f"
fi
