> setoption name Seed value 5
> position start players 2 seed 12
> go iterations 1500 multipv 3
< info iterations 1500 nodes 8529 nps <n> time <t> multipv 1 winprob 0.612 0.388 score 86.5 72.6 pv BACKDOOR GATE KING STAIRS GATE
< info iterations 1500 nodes 8529 nps <n> time <t> multipv 2 winprob 0.528 0.472 score 78.3 78.9 pv KING KING BACKDOOR GATE GATE
< info iterations 1500 nodes 8529 nps <n> time <t> multipv 3 winprob 0.525 0.475 score 80.8 76.1 pv PARADE KING MADAME GATE PARADE
< bestmove BACKDOOR GATE KING STAIRS GATE
> position start players 2 seed 12 moves MINT OFFICE KING MADAME STAIRS GATE OFFICE MINT KING PARADE
> go iterations 2000 multipv 2
< info iterations 2000 nodes 10922 nps <n> time <t> multipv 1 winprob 0.589 0.411 score 84.0 72.8 pv gate2 MADAME-BACKDOOR GATE-MADAME GATE-MADAME PARADE-KING PARADE-OFFICE
< info iterations 2000 nodes 10922 nps <n> time <t> multipv 2 winprob 0.498 0.502 score 79.1 77.9 pv gate1 KING-STAIRS GATE-MADAME
< bestmove gate2 MADAME-BACKDOOR GATE-MADAME GATE-MADAME PARADE-KING PARADE-OFFICE
> setoption name Algorithm value greedy
> go iterations 10
< info iterations 3 nodes 0 time <t> multipv 1 winprob 0.500 0.500 score 15.1 8.3 pv gate2
< bestmove gate2
> perft 2
< info string perft 2 nodes 58
> isready
< readyok
