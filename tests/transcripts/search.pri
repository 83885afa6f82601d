> setoption name Seed value 5
> position start players 2 seed 12
> go iterations 1500 multipv 3
< info iterations 1499 nodes 7362 nps <n> time <t> multipv 1 winprob 0.518 0.482 score 61.0 55.2 pv BACKDOOR MADAME KING KING PARADE
< info iterations 1499 nodes 7362 nps <n> time <t> multipv 2 winprob 0.505 0.495 score 59.6 54.8 pv CARDINAL MINT BACKDOOR BACKDOOR MINT
< info iterations 1499 nodes 7362 nps <n> time <t> multipv 3 winprob 0.501 0.499 score 59.6 55.3 pv MINT BACKDOOR CARDINAL BACKDOOR MINT
< bestmove BACKDOOR KING BACKDOOR OFFICE STAIRS
> position start players 2 seed 12 moves MINT OFFICE KING MADAME STAIRS GATE OFFICE MINT KING PARADE
> go iterations 2000 multipv 2
< info iterations 1750 nodes 8232 nps <n> time <t> multipv 1 winprob 0.540 0.460 score 61.1 59.1 pv gate2 MADAME-BACKDOOR GATE-CARDINAL end decline d4
< info iterations 1750 nodes 8232 nps <n> time <t> multipv 2 winprob 0.538 0.462 score 59.3 60.1 pv gate1 STAIRS-BACKDOOR MADAME-BACKDOOR PARADE-MINT OFFICE-STAIRS
< bestmove gate2 MADAME-BACKDOOR end
> setoption name Algorithm value greedy
> go iterations 10
< info iterations 3 nodes 0 time <t> multipv 1 winprob 0.500 0.500 score 56.0 46.4 pv gate2
< bestmove gate2
> perft 2
< info string perft 2 nodes 58
> isready
< readyok
