"""Entry point of the solver child process (see encoders/runner.py): `python -m` this module.

Reads sys.path from standard input, then `(kind, pickled (fn, args))` messages: it runs each
"warm" call as it comes (runner.warm_children: while the parent still works; a warm-up that
fails only loses its head start) and the "work" generator last, sending each of its items over
the pipe whose file descriptor is the first argument.
"""
from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection


def _die_with_parent() -> None:
    """End this process when the parent goes, even while a solver holds the GIL."""
    parent = os.getppid()
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: the kernel kills us with the parent
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)

    def watch() -> None:  # where prctl is missing: poll for re-parenting
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)
    threading.Thread(target=watch, daemon=True).start()


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it kills us
    _die_with_parent()
    conn = Connection(int(sys.argv[1]), readable=False)
    try:
        stdin = sys.stdin.buffer
        sys.path[:] = pickle.load(stdin)
        kind, payload = pickle.load(stdin)
        while kind == "warm":
            try:
                fn, args = pickle.loads(payload)
                fn(*args)
            except Exception:
                pass
            kind, payload = pickle.load(stdin)
        fn, args = pickle.loads(payload)
        for item in fn(*args):
            conn.send(("item", item))
        conn.send(("done", None))
    except BaseException as exc:  # report, never hang the parent
        try:
            conn.send(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        except OSError:
            pass
    finally:
        conn.close()


if __name__ == "__main__":
    main()
