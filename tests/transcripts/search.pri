> setoption name Seed value 5
> position start players 2 seed 12
> go iterations 1500 multipv 3
< info iterations 1499 nodes 7307 nps <n> time <t> multipv 1 winprob 0.520 0.480 score 61.5 55.3 pv BACKDOOR BACKDOOR MADAME STAIRS MINT
< info iterations 1499 nodes 7307 nps <n> time <t> multipv 2 winprob 0.502 0.498 score 58.9 55.4 pv MINT BACKDOOR BACKDOOR OFFICE PARADE
< info iterations 1499 nodes 7307 nps <n> time <t> multipv 3 winprob 0.501 0.499 score 58.8 53.8 pv KING CARDINAL BACKDOOR OFFICE OFFICE
< bestmove BACKDOOR BACKDOOR MINT MINT BACKDOOR
> position start players 2 seed 12 moves MINT OFFICE KING MADAME STAIRS GATE OFFICE MINT KING PARADE
> go iterations 2000 multipv 2
< info iterations 2000 nodes 8803 nps <n> time <t> multipv 1 winprob 0.536 0.464 score 60.6 58.9 pv gate2 STAIRS-BACKDOOR MADAME-BACKDOOR GATE-MADAME
< info iterations 2000 nodes 8803 nps <n> time <t> multipv 2 winprob 0.536 0.464 score 59.2 60.1 pv gate1 PARADE-MINT STAIRS-BACKDOOR OFFICE-PARADE GATE-MADAME
< bestmove gate2 STAIRS-BACKDOOR PARADE-MINT MADAME-BACKDOOR PARADE-MINT KING-PARADE f2
> setoption name Algorithm value greedy
> go iterations 10
< info iterations 3 nodes 0 time <t> multipv 1 winprob 0.500 0.500 score 56.0 46.4 pv gate2
< bestmove gate2
> perft 2
< info string perft 2 nodes 58
> isready
< readyok
