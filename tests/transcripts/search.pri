> setoption name Seed value 5
> position start players 2 seed 12
> go iterations 1500 multipv 3
< info iterations 1499 visits 7614 nodes 7614 nps <n> time <t> multipv 1 winprob 0.518 0.482 score 62.0 54.9 pv BACKDOOR PARADE KING STAIRS OFFICE
< info iterations 1499 visits 7614 nodes 7614 nps <n> time <t> multipv 2 winprob 0.509 0.491 score 59.1 54.4 pv KING BACKDOOR KING MINT PARADE
< info iterations 1499 visits 7614 nodes 7614 nps <n> time <t> multipv 3 winprob 0.498 0.502 score 60.3 55.0 pv CARDINAL BACKDOOR KING BACKDOOR KING
< bestmove BACKDOOR KING MINT MINT BACKDOOR
> position start players 2 seed 12 moves MINT OFFICE KING MADAME STAIRS GATE OFFICE MINT KING PARADE
> go iterations 2000 multipv 2
< info iterations 2000 visits 11316 nodes 11316 nps <n> time <t> multipv 1 winprob 0.580 0.420 score 62.8 59.6 pv gate2 STAIRS-BACKDOOR PARADE-MINT MADAME-BACKDOOR PARADE-MINT GATE-MADAME take
< info iterations 2000 visits 11316 nodes 11316 nps <n> time <t> multipv 2 winprob 0.542 0.458 score 58.6 60.3 pv gate1 PARADE-KING GATE-CARDINAL CARDINAL-OFFICE
< bestmove gate2 STAIRS-BACKDOOR PARADE-MINT MADAME-BACKDOOR PARADE-MINT GATE-CARDINAL take f2
> setoption name Algorithm value greedy
> go iterations 10
< info iterations 3 visits 0 nodes 0 time <t> multipv 1 winprob 0.500 0.500 score 56.0 46.4 pv gate2
< bestmove gate2
> perft 2
< info string perft 2 nodes 58
> isready
< readyok
