"""board: the RP2040's GPIO pins, GP0 ... GP29 (a Raspberry Pi Pico's names)."""


class Pin:
    def __init__(self, number):
        self.number = number

    def __repr__(self):
        return "board.GP%d" % self.number


for _number in range(30):
    globals()["GP%d" % _number] = Pin(_number)
LED = globals()["GP25"]
del _number
