"""Names, counts and the integer action encoding shared by every part of the rules core.

Both rules implementations (the Cython state and the plain-Python reference twin), the
notation module and the search read their vocabulary from here, so an action id or a room
index means the same thing everywhere. The orders below are the canonical orders of
RULES.md §10: options are enumerated in ascending action id.
"""

# Rooms, in the order of the table in RULES.md §1 (this is also the enumeration order).
ROOMS = ("GATE", "PARADE", "STAIRS", "MINT", "KING", "MADAME", "OFFICE", "BACKDOOR", "CARDINAL")
GATE, PARADE, STAIRS, MINT, KING, MADAME, OFFICE, BACKDOOR, CARDINAL = range(9)
N_ROOMS = 9
ROOM_INDEX = {name: i for i, name in enumerate(ROOMS)}     # room code -> room index


def layout_text(codes) -> str:
    """A layout's text, 9 room codes in grid order: "R,R,R/R,R,R/R,R,R", row by row from the
    park side (records, position strings and PRI all write it so)."""
    codes = list(codes)
    return "/".join(",".join(codes[row * 3:row * 3 + 3]) for row in range(3))

# The first-game layout, row by row from the park side, left to right (grid cell -> room).
FIRST_GAME_LAYOUT = (BACKDOOR, OFFICE, CARDINAL, MINT, GATE, MADAME, STAIRS, KING, PARADE)

# Privilege cards, in the order of the table in RULES.md §6.
CARDS = ("GOLD", "MOVES", "GUARDS", "KINGSEAL", "MADAMESEAL", "LETTER", "INTRIGUE", "FOOTMAN", "HONOUR")
C_GOLD, C_MOVES, C_GUARDS, C_KINGSEAL, C_MADAMESEAL, C_LETTER, C_INTRIGUE, C_FOOTMAN, C_HONOUR = range(9)
N_CARDS = 9

# Noble privileges, in the order of the table in RULES.md §4. NONE is a tile with points only.
PRIVILEGES = ("NONE", "INCOME", "SUPPLY", "MOVE", "REINFORCE", "TURQUOISE", "VIOLET",
              "SECRETARY", "CARDS", "FAVOUR")
(P_NONE, P_INCOME, P_SUPPLY, P_MOVE, P_REINFORCE, P_TURQUOISE, P_VIOLET,
 P_SECRETARY, P_CARDS, P_FAVOUR) = range(10)

# Park: square index = rank * 6 + file, a1 = 0, b1 = 1, ... f1 = 5, a2 = 6, ... f6 = 35.
N_SQUARES = 36
PARK_FILES = "abcdef"
SQUARE_NAMES = tuple(f"{PARK_FILES[sq % 6]}{sq // 6 + 1}" for sq in range(N_SQUARES))
# The four sides scored at the end, in the order of the component file's park points:
# rank 1, rank 6, file a, file f. A corner belongs to two sides.
SIDES = (
    tuple(range(0, 6)),
    tuple(range(30, 36)),
    tuple(range(0, 36, 6)),
    tuple(range(5, 36, 6)),
)
SIDE_NAMES = ("rank1", "rank6", "fileA", "fileF")
BORDER = tuple(sq for sq in range(N_SQUARES) if sq // 6 in (0, 5) or sq % 6 in (0, 5))

MAX_PLAYERS = 4
MIN_PLAYERS = 2
PLAYER_COUNTS = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))     # (2, 3, 4)
SERVANTS_PER_COLOUR = 25
SERVANTS_TO_PLAY_AREA = 18
SETUP_STAIRS = 3
SETUP_PARADE = 2
SETUP_FREE_PLACEMENTS = 5
START_GOLD = (0, 1, 2, 3)
MAX_TILES = 48          # a component set holds 36..48 tiles
MAX_CARDS_PER_TYPE = 8  # a component set holds 0..8 cards of each type

# ---------------------------------------------------------------------------------------
# Action encoding. One integer per atomic decision or chance outcome; the meaning of a
# room action depends on the decision point (setup placement or source room).
A_ROOM = 0              # + room (9): setup placement, or the source room of a placement
A_GATE = 9              # + k (0..25): step 1, put k servants on the GATE
MAX_GATE = 25
A_MOVE = 35             # + from_room * 9 + to_room (81): one stairway move
A_RECRUIT = 116         # + square (36): recruit the tile on that park square
A_PLAY = 152            # + card (9): play a card at a card window
A_DRAW = 161            # + card (9): chance outcome, the type of the card drawn
A_TAKE = 170            # take the KING / MADAME majority bonus
A_CONTINUE = 171        # close a card window
A_END = 172             # end moves / end recruiting
A_DECLINE = 173         # decline the KING / MADAME majority bonus
A_DRAW_UNKNOWN = 174    # in a seat's view only: another seat drew a card of unknown type
N_ACTIONS = 175
KEYWORD_ACTIONS = {A_TAKE: "take", A_CONTINUE: "continue", A_END: "end", A_DECLINE: "decline"}


def decode_action(action: int) -> tuple:
    """What an action id names, the inverse of the encoding above: (kind, a, b) with kind
    "room" (a = room), "gate" (a = servants), "move" (a = from room, b = to room), "recruit"
    (a = square), "play" or "draw" (a = card), "unknown draw", or a keyword ("take",
    "continue", "end", "decline"); unused parts are -1. The caller checks 0 <= action < N_ACTIONS."""
    if action < A_GATE:
        return "room", action - A_ROOM, -1
    if action < A_MOVE:
        return "gate", action - A_GATE, -1
    if action < A_RECRUIT:
        src, dst = divmod(action - A_MOVE, N_ROOMS)
        return "move", src, dst
    if action < A_PLAY:
        return "recruit", action - A_RECRUIT, -1
    if action < A_DRAW:
        return "play", action - A_PLAY, -1
    if action < A_TAKE:
        return "draw", action - A_DRAW, -1
    if action == A_DRAW_UNKNOWN:
        return "unknown draw", -1, -1
    return KEYWORD_ACTIONS[action], -1, -1

# Turn stages: where in the game the next decision or automatic step is (RULES.md §3, §10).
STAGES = ("SETUP", "TURN_START", "WINDOW1", "STEP1", "GATE_PLACE", "WINDOW2", "STEP2",
          "MOVES", "WINDOW3", "STEP3", "KING_BONUS", "MADAME_BONUS", "WINDOW4", "STEP4",
          "RECRUIT", "SOURCE", "STEP5", "DRAW", "WINDOW5", "TURN_END", "GAME_OVER")
(S_SETUP, S_TURN_START, S_WINDOW1, S_STEP1, S_GATE_PLACE, S_WINDOW2, S_STEP2, S_MOVES,
 S_WINDOW3, S_STEP3, S_KING_BONUS, S_MADAME_BONUS, S_WINDOW4, S_STEP4, S_RECRUIT,
 S_SOURCE, S_STEP5, S_DRAW, S_WINDOW5, S_TURN_END, S_GAME_OVER) = range(21)
# The target of a pending source-room choice (S_SOURCE): a room index, or the park.
SOURCE_PARK = 9

# current_player() for a chance node and for a finished game.
CHANCE = -1
TERMINAL = -2

# Which cards each card window allows (RULES.md §6), windows 1..5 = starts of steps 1-4 and
# the end of the turn. "Any step" cards (GOLD, INTRIGUE, FOOTMAN, HONOUR) are allowed at all.
_ANY_STEP = (C_GOLD, C_INTRIGUE, C_FOOTMAN, C_HONOUR)
_WINDOW_EXTRA = ((C_GUARDS,), (C_MOVES,), (), (C_KINGSEAL, C_MADAMESEAL, C_LETTER), ())
WINDOW_CARDS = tuple(
    tuple(c in _ANY_STEP or c in extra for c in range(N_CARDS)) for extra in _WINDOW_EXTRA)


def room_adjacency(layout) -> tuple:
    """For each room, the rooms sharing a side with it in the 3x3 grid, in ascending order."""
    cell_of = {room: cell for cell, room in enumerate(layout)}
    adjacent = []
    for room in range(N_ROOMS):
        row, col = divmod(cell_of[room], 3)
        near = [layout[r * 3 + c] for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
                if 0 <= r < 3 and 0 <= c < 3]
        adjacent.append(tuple(sorted(near)))
    return tuple(adjacent)
