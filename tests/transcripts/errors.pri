> go movetime 100
< info string error: no position: send 'position ...' first
> d
< info string error: no position: send 'position ...' first (or the game is over)
> position start players 5
< info string error: 'players' must be in 2..4, got 5
> position start players 3 seed 2 moves MINT gate9
< info string error: moves: token 2 'gate9' is not legal here (legal: GATE PARADE STAIRS MINT KING MADAME OFFICE BACKDOOR CARDINAL)
> position start players 3 seed 2 layout A,B,C/D,E,F/G,H,I
< info string error: layout: 'A' is not a room (GATE, PARADE, STAIRS, MINT, KING, MADAME, OFFICE, BACKDOOR, CARDINAL)
> position pos pr1 players=3
< info string error: position: missing field 'set'
> go warp 9
< info string error: unknown word 'warp' in 'go' (movetime, iterations, nodes, infinite, p1time..p4time, p1inc..p4inc, multipv)
> hello world
< info string error: unknown command 'hello' (commands: pri, isready, setoption, newgame, position, go, stop, quit, d, perft, bench, hint)
> isready
< readyok
