> setoption name Seed value 5
> position start players 2 seed 12
> go iterations 1500 multipv 3
< info iterations 1500 nodes 8948 nps <n> time <t> multipv 1 winprob 0.724 0.276 score 23.9 15.1 pv MINT MINT OFFICE MINT STAIRS
< info iterations 1500 nodes 8948 nps <n> time <t> multipv 2 winprob 0.624 0.376 score 20.8 16.0 pv STAIRS PARADE OFFICE MINT STAIRS
< info iterations 1500 nodes 8948 nps <n> time <t> multipv 3 winprob 0.574 0.426 score 19.3 16.4 pv PARADE MINT BACKDOOR MINT GATE
< bestmove MINT MINT OFFICE MINT STAIRS
> position start players 2 seed 12 moves MINT OFFICE KING MADAME STAIRS GATE OFFICE MINT KING PARADE
> go iterations 2000 multipv 2
< info iterations 2000 nodes 11494 nps <n> time <t> multipv 1 winprob 0.581 0.419 score 24.4 21.0 pv gate2 end take end
< info iterations 2000 nodes 11494 nps <n> time <t> multipv 2 winprob 0.455 0.545 score 22.3 23.7 pv gate1 end decline
< bestmove gate2 end take end
> setoption name Algorithm value greedy
> go iterations 10
< info iterations 3 nodes 0 time <t> multipv 1 winprob 0.500 0.500 score 15.1 8.3 pv gate2
< bestmove gate2
> perft 2
< info string perft 2 nodes 58
> isready
< readyok
