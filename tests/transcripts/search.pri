> setoption name Seed value 5
> position start players 2 seed 12
> go iterations 1500 multipv 3
< info iterations 1500 nodes 8379 nps <n> time <t> multipv 1 winprob 0.542 0.458 score 81.4 76.4 pv MINT PARADE OFFICE BACKDOOR PARADE
< info iterations 1500 nodes 8379 nps <n> time <t> multipv 2 winprob 0.537 0.463 score 80.1 77.4 pv OFFICE CARDINAL KING BACKDOOR BACKDOOR
< info iterations 1500 nodes 8379 nps <n> time <t> multipv 3 winprob 0.515 0.485 score 80.2 76.6 pv KING MINT PARADE MINT KING
< bestmove MINT PARADE OFFICE BACKDOOR PARADE
> position start players 2 seed 12 moves MINT OFFICE KING MADAME STAIRS GATE OFFICE MINT KING PARADE
> go iterations 2000 multipv 2
< info iterations 2000 nodes 10778 nps <n> time <t> multipv 1 winprob 0.578 0.422 score 82.7 74.0 pv gate2 OFFICE-STAIRS GATE-MADAME end take
< info iterations 2000 nodes 10778 nps <n> time <t> multipv 2 winprob 0.497 0.503 score 79.5 76.9 pv gate1 OFFICE-MADAME MADAME-OFFICE MADAME-BACKDOOR GATE-MADAME
< bestmove gate2 OFFICE-STAIRS GATE-MADAME end take
> setoption name Algorithm value greedy
> go iterations 10
< info iterations 3 nodes 0 time <t> multipv 1 winprob 0.500 0.500 score 15.1 8.3 pv gate2
< bestmove gate2
> perft 2
< info string perft 2 nodes 58
> isready
< readyok
