"""What boot.py does on the board: the protocol's USB channel, and production
or development mode (tablefw.lifecycle describes both; code.py never loads this).

The board modules (``board``, ``digitalio``, ``storage``, ``usb_cdc``) are
handed in as one namespace, so tests run this on CPython with fakes.
"""

DEFAULT_DEV_JUMPER = "GP28"

PRODUCTION = "production"
DEVELOPMENT = "development"


def dev_jumper_closed(hw, pin_name):
    """Whether ``pin_name`` is pulled to GND by the development jumper."""
    pin = getattr(hw.board, pin_name, None)
    if pin is None:
        return False
    io = hw.digitalio.DigitalInOut(pin)
    try:
        io.switch_to_input(pull=hw.digitalio.Pull.UP)
        return not io.value
    finally:
        io.deinit()


def boot(hw, pin_name=DEFAULT_DEV_JUMPER, log=print):
    """boot.py: the protocol's USB channel, and production or development mode.
    Returns the mode."""
    hw.usb_cdc.enable(console=True, data=True)
    if dev_jumper_closed(hw, pin_name):
        log("tablefw: development mode (jumper on %s): CIRCUITPY is writable by the host"
            % pin_name)
        return DEVELOPMENT
    # CircuitPython gets write access, so the host gets none: the Pi cannot
    # change the firmware or trigger a reload.
    hw.storage.remount("/", readonly=False)
    log("tablefw: production mode: CIRCUITPY is read-only to the host (jumper %s to GND at power-up"
        " for development mode)" % pin_name)
    return PRODUCTION
