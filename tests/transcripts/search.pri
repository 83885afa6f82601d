> setoption name Seed value 5
> position start players 2 seed 12
> go iterations 1500 multipv 3
< info iterations 1500 nodes 8391 nps <n> time <t> multipv 1 winprob 0.548 0.452 score 20.3 17.7 pv BACKDOOR MINT MINT MADAME CARDINAL
< info iterations 1500 nodes 8391 nps <n> time <t> multipv 2 winprob 0.543 0.457 score 22.3 16.3 pv MINT MINT MADAME CARDINAL BACKDOOR
< info iterations 1500 nodes 8391 nps <n> time <t> multipv 3 winprob 0.532 0.468 score 21.0 16.8 pv MADAME MINT MINT CARDINAL BACKDOOR
< bestmove BACKDOOR MINT MINT MADAME CARDINAL
> position start players 2 seed 12 moves MINT OFFICE KING MADAME STAIRS GATE OFFICE MINT KING PARADE
> go iterations 2000 multipv 2
< info iterations 2000 nodes 10340 nps <n> time <t> multipv 1 winprob 0.537 0.463 score 21.8 22.2 pv gate2 KING-PARADE STAIRS-BACKDOOR OFFICE-CARDINAL PARADE-MINT CARDINAL-OFFICE
< info iterations 2000 nodes 10340 nps <n> time <t> multipv 2 winprob 0.520 0.480 score 20.6 23.5 pv gate1 end take end
< bestmove gate2 KING-PARADE STAIRS-BACKDOOR OFFICE-CARDINAL PARADE-MINT CARDINAL-OFFICE
> setoption name Algorithm value greedy
> go iterations 10
< info iterations 3 nodes 0 time <t> multipv 1 winprob 0.500 0.500 score 15.1 8.3 pv gate2
< bestmove gate2
> perft 2
< info string perft 2 nodes 58
> isready
< readyok
