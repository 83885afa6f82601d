> setoption name Seed value 5
> position start players 2 seed 12
> go iterations 1500 multipv 3
< info iterations 1500 nodes 8464 nps <n> time <t> multipv 1 winprob 0.577 0.423 score 85.0 72.8 pv MADAME BACKDOOR GATE PARADE GATE
< info iterations 1500 nodes 8464 nps <n> time <t> multipv 2 winprob 0.576 0.424 score 83.0 75.7 pv BACKDOOR BACKDOOR KING GATE PARADE
< info iterations 1500 nodes 8464 nps <n> time <t> multipv 3 winprob 0.555 0.445 score 81.7 75.6 pv OFFICE MADAME BACKDOOR PARADE GATE
< bestmove MADAME BACKDOOR GATE PARADE GATE
> position start players 2 seed 12 moves MINT OFFICE KING MADAME STAIRS GATE OFFICE MINT KING PARADE
> go iterations 2000 multipv 2
< info iterations 2000 nodes 11299 nps <n> time <t> multipv 1 winprob 0.566 0.434 score 82.3 74.3 pv gate2 MADAME-BACKDOOR KING-PARADE GATE-MADAME GATE-MADAME
< info iterations 2000 nodes 11299 nps <n> time <t> multipv 2 winprob 0.448 0.552 score 76.5 79.8 pv gate1 end take b5
< bestmove gate2 MADAME-BACKDOOR KING-PARADE GATE-MADAME GATE-MADAME
> setoption name Algorithm value greedy
> go iterations 10
< info iterations 3 nodes 0 time <t> multipv 1 winprob 0.500 0.500 score 15.1 8.3 pv gate2
< bestmove gate2
> perft 2
< info string perft 2 nodes 58
> isready
< readyok
