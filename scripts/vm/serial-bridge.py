#!/usr/bin/python3
"""Joins a serial port to a Unix stream socket, byte for byte, both ways, until either side ends.

    serial-bridge.py TTY SOCKET

The two-guest Bluetooth test runs it in the central's guest: TTY is the serial port qemu joins to
the peripheral's guest, SOCKET is btvirt's LE server (/tmp/bt-server-le, `btvirt -s`), which
makes an emulated controller for each connection — in the same btvirt process, so on the same
virtual air, as the central's own controller (`btvirt -l1`). The peripheral's guest attaches its
end of the serial line with `btattach -P h4`: its kernel drives that emulated controller over
H:4, as it would a UART controller on a Pi. "bridged" goes to stdout once both are open.
"""
import os
import select
import socket
import sys
import termios
import tty


def main():
    tty_path, socket_path = sys.argv[1], sys.argv[2]
    port = os.open(tty_path, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(port)
    attributes = termios.tcgetattr(port)
    attributes[2] &= ~termios.CRTSCTS  # no hardware flow control: qemu's socket has none
    termios.tcsetattr(port, termios.TCSANOW, attributes)
    termios.tcflush(port, termios.TCIOFLUSH)
    peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    peer.connect(socket_path)
    print("bridged", flush=True)
    ends = {port: peer.fileno(), peer.fileno(): port}
    while True:
        ready, _, _ = select.select(list(ends), [], [])
        for source in ready:
            data = os.read(source, 4096)
            if not data:
                return
            target = ends[source]
            while data:
                data = data[os.write(target, data):]


if __name__ == "__main__":
    main()
