#!/usr/bin/env python3
"""Runs a command in a pseudo-terminal of a given size and appends every byte
it writes to the terminal to a file (so that the terminal output can be
counted while it runs). Used by benches/side_by_side.sh.

Usage: pty_run.py COLS ROWS OUTFILE PIDFILE -- COMMAND [ARGS...]

Writes the command's pid to PIDFILE once it runs. On SIGTERM or SIGINT it
types Ctrl-C into the terminal (the console's quit key), keeps reading until
the command exits (at most 10 s, then SIGKILL) and exits with its status.
Nothing is ever typed otherwise: the command sees an idle operator. It
answers, as a terminal does, a request for the cursor position (`ESC [6n`,
which crossterm's start-up sends in some programs, kdash among them: it
stops when no answer comes) with the top-left corner.
"""

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time


def main() -> int:
    args = sys.argv[1:]
    if len(args) < 6 or args[4] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    cols, rows, outfile, pidfile = int(args[0]), int(args[1]), args[2], args[3]
    command = args[5:]

    pid, master = pty.fork()
    if pid == 0:
        os.environ.setdefault("TERM", "xterm-256color")
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)

    # The size is set before the child reads it (it only reads it after exec
    # and its start-up); SIGWINCH tells it anyway.
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    with open(pidfile, "w") as f:
        f.write(f"{pid}\n")

    stop = {"asked": None}

    def on_signal(_sig, _frame):
        if stop["asked"] is None:
            stop["asked"] = time.monotonic()
            try:
                os.write(master, b"\x03")
            except OSError:
                pass

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    status = None
    with open(outfile, "ab", buffering=0) as out:
        while True:
            if stop["asked"] is not None and time.monotonic() - stop["asked"] > 10:
                os.kill(pid, signal.SIGKILL)
            try:
                ready, _, _ = select.select([master], [], [], 0.5)
            except InterruptedError:
                continue
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not data:
                    break
                out.write(data)
                # One answer per request; a request split across two reads
                # is not recognised (crossterm sends the 4 bytes at once).
                for _ in range(data.count(b"\x1b[6n")):
                    try:
                        os.write(master, b"\x1b[1;1R")
                    except OSError:
                        pass
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
                break
    if status is None:
        _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
