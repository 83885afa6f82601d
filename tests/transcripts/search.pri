> setoption name Seed value 5
> position start players 2 seed 12
> go iterations 1500 multipv 3
< info iterations 1499 visits 8333 nodes 8333 nps <n> time <t> multipv 1 winprob 0.561 0.439 score 62.6 55.8 pv BACKDOOR MINT MINT BACKDOOR PARADE
< info iterations 1499 visits 8333 nodes 8333 nps <n> time <t> multipv 2 winprob 0.554 0.446 score 61.1 56.0 pv MINT BACKDOOR MINT BACKDOOR PARADE
< info iterations 1499 visits 8333 nodes 8333 nps <n> time <t> multipv 3 winprob 0.537 0.463 score 58.6 54.6 pv MADAME MINT MINT BACKDOOR MINT
< bestmove BACKDOOR BACKDOOR MINT MINT PARADE
> position start players 2 seed 12 moves MINT OFFICE KING MADAME STAIRS GATE OFFICE MINT KING PARADE
> go iterations 2000 multipv 2
< info iterations 2000 visits 12791 nodes 12791 nps <n> time <t> multipv 1 winprob 0.614 0.386 score 65.3 59.4 pv gate2 MADAME-BACKDOOR STAIRS-BACKDOOR PARADE-MINT STAIRS-BACKDOOR GATE-CARDINAL take end
< info iterations 2000 visits 12791 nodes 12791 nps <n> time <t> multipv 2 winprob 0.516 0.484 score 59.3 60.3 pv gate1 OFFICE-MADAME PARADE-MINT STAIRS-BACKDOOR MADAME-BACKDOOR GATE-MADAME
< bestmove gate2 MADAME-BACKDOOR STAIRS-BACKDOOR PARADE-MINT PARADE-MINT GATE-CARDINAL take f2
> setoption name Algorithm value greedy
> go iterations 10
< info iterations 3 visits 0 nodes 0 time <t> multipv 1 winprob 0.500 0.500 score 56.0 46.4 pv gate2
< bestmove gate2
> perft 2
< info string perft 2 nodes 58
> isready
< readyok
