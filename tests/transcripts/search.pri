> setoption name Seed value 5
> position start players 2 seed 12
> go iterations 1500 multipv 3
< info iterations 1500 nodes 8395 nps <n> time <t> multipv 1 winprob 0.518 0.482 score 20.5 17.2 pv BACKDOOR BACKDOOR STAIRS OFFICE STAIRS
< info iterations 1500 nodes 8395 nps <n> time <t> multipv 2 winprob 0.501 0.499 score 19.3 16.6 pv KING BACKDOOR GATE STAIRS KING
< info iterations 1500 nodes 8395 nps <n> time <t> multipv 3 winprob 0.498 0.502 score 22.1 16.6 pv MINT MINT MINT OFFICE
< bestmove BACKDOOR BACKDOOR STAIRS OFFICE STAIRS
> position start players 2 seed 12 moves MINT OFFICE KING MADAME STAIRS GATE OFFICE MINT KING PARADE
> go iterations 2000 multipv 2
< info iterations 2000 nodes 10229 nps <n> time <t> multipv 1 winprob 0.541 0.459 score 21.3 22.6 pv gate2 STAIRS-BACKDOOR PARADE-MINT PARADE-KING STAIRS-OFFICE STAIRS-BACKDOOR take
< info iterations 2000 nodes 10229 nps <n> time <t> multipv 2 winprob 0.541 0.459 score 20.7 23.3 pv gate1 MADAME-BACKDOOR OFFICE-MADAME KING-PARADE STAIRS-KING PARADE-MINT take
< bestmove gate2 STAIRS-BACKDOOR PARADE-MINT PARADE-KING STAIRS-OFFICE STAIRS-BACKDOOR take
> setoption name Algorithm value greedy
> go iterations 10
< info iterations 3 nodes 0 time <t> multipv 1 winprob 0.500 0.500 score 15.1 8.3 pv gate2
< bestmove gate2
> perft 2
< info string perft 2 nodes 58
> isready
< readyok
