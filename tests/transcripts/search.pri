> setoption name Seed value 5
> position start players 2 seed 12
> go iterations 1500 multipv 3
< info iterations 1500 nodes 8618 nps <n> time <t> multipv 1 winprob 0.691 0.309 score 23.6 16.1 pv MINT MINT MINT GATE CARDINAL
< info iterations 1500 nodes 8618 nps <n> time <t> multipv 2 winprob 0.582 0.418 score 20.6 17.4 pv CARDINAL MADAME OFFICE BACKDOOR CARDINAL
< info iterations 1500 nodes 8618 nps <n> time <t> multipv 3 winprob 0.579 0.421 score 20.2 17.1 pv OFFICE MINT MINT OFFICE MINT
< bestmove MINT MINT MINT GATE CARDINAL
> position start players 2 seed 12 moves MINT OFFICE KING MADAME STAIRS GATE OFFICE MINT KING PARADE
> go iterations 2000 multipv 2
< info iterations 2000 nodes 12988 nps <n> time <t> multipv 1 winprob 0.614 0.386 score 25.5 20.7 pv gate2 end take end
< info iterations 2000 nodes 12988 nps <n> time <t> multipv 2 winprob 0.351 0.649 score 19.7 25.2 pv gate1 PARADE-MINT PARADE-MINT OFFICE-STAIRS
< bestmove gate2 end take end
> setoption name Algorithm value greedy
> go iterations 10
< info iterations 3 nodes 0 time <t> multipv 1 winprob 0.500 0.500 score 15.1 8.3 pv gate2
< bestmove gate2
> perft 2
< info string perft 2 nodes 58
> isready
< readyok
