#!/usr/bin/env python3
"""pty_run.py — run a command with its standard input on a pseudo-terminal.

Usage: pty_run.py INPUT OUT ERR -- COMMAND [ARG...]

The command's stdin is the slave side of a new pty (so isatty(0) is true);
its stdout and stderr go to the files OUT and ERR. The bytes of INPUT are
typed into the terminal (typed ahead: the terminal keeps them until the
command reads), then an end of file (Ctrl-D at the start of a line). Exits with the command's status; 124 when
it has not finished within 30 s (it is killed).
"""
import os
import pty
import subprocess
import sys
import termios
import threading


def main():
    if len(sys.argv) < 6 or sys.argv[4] != '--':
        sys.exit(__doc__)
    data = open(sys.argv[1], 'rb').read()
    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[3] &= ~termios.ECHO  # no echo: what is typed is not read back
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    with open(sys.argv[2], 'wb') as out, open(sys.argv[3], 'wb') as err:
        p = subprocess.Popen(sys.argv[5:], stdin=slave, stdout=out, stderr=err)
        os.close(slave)
        # typed ahead (the terminal keeps it until the command reads; a write
        # blocks while its input buffer is full), from a thread: no wait on
        # the clock, and a command that never reads cannot hang this script
        threading.Thread(target=type_in, args=(master, data), daemon=True).start()
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            rc = 124
    os.close(master)
    sys.exit(rc)


def type_in(master, data):
    try:
        for line in data.splitlines(keepends=True):  # canonical mode: a line at a time
            os.write(master, line)
        if data and not data.endswith(b'\n'):
            os.write(master, b'\n')
        os.write(master, b'\x04')  # VEOF at the start of a line: end of file
    except OSError:
        pass  # the command is gone


if __name__ == '__main__':
    main()
