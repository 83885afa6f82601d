> pri
< id name palais-engine 0.1.0 value 5c15de319da1/ebe7702cc36e/439423d8cf61 policy 88699bf1e994/09723f6237c5/2d082668e326
< id author the palais-engine developers
< info string value kernel <kernel>
< info string option Threads is the old name of Processes, still accepted (deprecated)
< info string info key nodes is the old name of visits, still sent beside it (deprecated)
< option name Algorithm type combo default ismcts var ismcts var mcts var pimc var greedy var random
< option name Processes type spin default 1 min 1 max 64
< option name Hash type spin default 0 min 0 max 65536
< option name MultiPV type spin default 1 min 1 max 64
< option name Seed type spin default 0 min 0 max 9223372036854775807
< option name Exploration type string default 0.7
< option name Rollout Policy type combo default heuristic var heuristic var uniform
< option name Rollout Turns type spin default -1 min -1 max 1000
< option name Leaf Eval type combo default auto var auto var heuristic var value
< option name Value Weights type string default <empty>
< option name Selection type combo default puct var uct var puct var gumbel
< option name Prior C type string default 0.5
< option name Policy Weights type string default <empty>
< option name Gumbel K type spin default 16 min 1 max 96
< option name Gumbel Scale type string default 1.0
< option name Decision Share type string default 0.5
< option name Move Overhead type spin default 30 min 0 max 10000
< priok
> isready
< readyok
> setoption name Hash value 16
> setoption name Threads value zero
< info string error: option Processes: expected a whole number, got 'zero'
> setoption name Colour value red
< info string error: unknown option 'Colour' (options: Algorithm, Processes, Hash, MultiPV, Seed, Exploration, Rollout Policy, Rollout Turns, Leaf Eval, Value Weights, Selection, Prior C, Policy Weights, Gumbel K, Gumbel Scale, Decision Share, Move Overhead)
> isready
< readyok
