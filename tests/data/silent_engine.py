"""A broken PRI engine for the client and compliance tests: it completes the handshake, then
answers nothing at all (not even isready), and exits on quit or at the end of input."""
import sys

for line in sys.stdin:
    word = line.split()[:1]
    if word == ["pri"]:
        print("id name silent", flush=True)
        print("priok", flush=True)
    elif word == ["quit"]:
        break
    elif word == ["die"]:
        sys.exit(3)
