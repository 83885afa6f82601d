> setoption name Seed value 5
> position start players 2 seed 12
> go iterations 1500 multipv 3
< info iterations 1500 nodes 8402 nps <n> time <t> multipv 1 winprob 0.515 0.485 score 22.1 16.9 pv MINT MINT BACKDOOR GATE KING
< info iterations 1500 nodes 8402 nps <n> time <t> multipv 2 winprob 0.505 0.495 score 20.5 17.6 pv BACKDOOR MINT MINT GATE KING
< info iterations 1500 nodes 8402 nps <n> time <t> multipv 3 winprob 0.481 0.519 score 20.2 17.0 pv CARDINAL BACKDOOR CARDINAL MINT MINT
< bestmove MINT MINT BACKDOOR GATE KING
> position start players 2 seed 12 moves MINT OFFICE KING MADAME STAIRS GATE OFFICE MINT KING PARADE
> go iterations 2000 multipv 2
< info iterations 2000 nodes 10262 nps <n> time <t> multipv 1 winprob 0.551 0.449 score 21.6 22.3 pv gate2 PARADE-MINT KING-PARADE STAIRS-BACKDOOR OFFICE-MADAME MADAME-OFFICE
< info iterations 2000 nodes 10262 nps <n> time <t> multipv 2 winprob 0.548 0.452 score 20.4 23.6 pv gate1 MADAME-OFFICE GATE-CARDINAL STAIRS-OFFICE OFFICE-MADAME CARDINAL-MINT
< bestmove gate2 PARADE-MINT KING-PARADE STAIRS-BACKDOOR OFFICE-MADAME MADAME-OFFICE
> setoption name Algorithm value greedy
> go iterations 10
< info iterations 3 nodes 0 time <t> multipv 1 winprob 0.500 0.500 score 15.1 8.3 pv gate2
< bestmove gate2
> perft 2
< info string perft 2 nodes 58
> isready
< readyok
