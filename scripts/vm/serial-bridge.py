#!/usr/bin/python3
"""Joins a serial port to a Unix stream socket, both ways, until either side ends.

    serial-bridge.py TTY SOCKET

The two-guest Bluetooth test runs it in the central's guest: TTY is the serial port qemu joins to
the peripheral's guest, SOCKET is btvirt's LE server (/tmp/bt-server-le, `btvirt -s`), which
makes an emulated controller for each connection — in the same btvirt process, so on the same
virtual air, as the central's own controller (`btvirt -l1`). The peripheral's guest attaches its
end of the serial line with `btattach -P h4`: its kernel drives that emulated controller over
H:4, as it would a UART controller on a Pi. "bridged" goes to stdout once both are open.

From the serial port to the server the bytes go as whole H:4 packets, one send each. A serial
port delivers a packet in pieces (its 16-byte FIFO's), and btvirt's server (BlueZ 5.66,
emulator/server.c, client_read_callback) reads an ACL packet's length from its header without
checking that the header has arrived, and keeps a partial command header at the wrong place when
a whole packet came before it in the same read: a piece ending inside a header threw the stream
out of step, and from then on the peripheral's controller took garbage for commands (ATT
requests unanswered for 30 s, "Authentication Failed" to an advertising command) — seen in one
run of the pairing test in three. The other way, to the peripheral's kernel, goes as it comes
(its H:4 reader puts packets together itself).
"""
import os
import select
import socket
import sys
import termios
import tty

# H:4 packets a host sends, by their indicator: (header length after the indicator, how to read
# the payload's length from the header).
HEADERS = {
    0x01: (3, lambda h: h[2]),                               # command: opcode, parameter length
    0x02: (4, lambda h: h[2] | h[3] << 8),                   # ACL: handle and flags, data length
    0x03: (3, lambda h: h[2]),                               # SCO: handle, data length
    0x05: (4, lambda h: (h[2] | h[3] << 8) & 0x3FFF),        # ISO: handle and flags, data length
}


def packets(buffer):
    """The whole packets at the start of `buffer`, and what is left after them."""
    whole = []
    while buffer:
        header = HEADERS.get(buffer[0])
        if header is None:
            raise ValueError("not an H:4 packet from a host: indicator 0x%02x" % buffer[0])
        size, payload = header
        if len(buffer) < 1 + size:
            break
        end = 1 + size + payload(buffer[1:1 + size])
        if len(buffer) < end:
            break
        whole.append(bytes(buffer[:end]))
        buffer = buffer[end:]
    return whole, buffer


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
    pending = b""
    while True:
        ready, _, _ = select.select([port, peer], [], [])
        if port in ready:
            data = os.read(port, 4096)
            if not data:
                return
            whole, pending = packets(pending + data)
            for packet in whole:
                peer.sendall(packet)
        if peer in ready:
            data = peer.recv(4096)
            if not data:
                return
            while data:
                data = data[os.write(port, data):]


if __name__ == "__main__":
    main()
