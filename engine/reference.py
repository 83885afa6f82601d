"""The reference twin: the rules of Palais Royal in plain, readable Python.

It has the same API as the fast Cython state (`engine.state.State`) and exists to be read and
trusted: the differential tests play hundreds of random games through both and compare every
legal action list, key, view and score. When the two disagree, this file is the one to read
next to RULES.md. It is slow on purpose (no caching beyond what makes it readable) and its
Zobrist key is always computed from scratch.

A game is a sequence of decisions and chance events (RULES.md §10). `apply(action)` performs
one of them, then runs every automatic step until the next decision point, so a state is
always at a decision, a chance event, or the end of the game.
"""

from __future__ import annotations

from .constants import (
    A_CONTINUE, A_DECLINE, A_DRAW, A_DRAW_UNKNOWN, A_END, A_GATE, A_MOVE, A_PLAY,
    A_RECRUIT, A_ROOM, A_TAKE, BACKDOOR, BORDER, CARDINAL, CHANCE, C_GOLD, C_GUARDS, C_HONOUR,
    C_FOOTMAN, C_INTRIGUE, C_KINGSEAL, C_LETTER, C_MADAMESEAL, C_MOVES, GATE, KING, MADAME,
    MINT, N_CARDS, N_ROOMS, N_SQUARES, OFFICE, PARADE, P_CARDS, P_FAVOUR, P_INCOME, P_MOVE,
    P_REINFORCE, P_SECRETARY, P_SUPPLY, P_TURQUOISE, P_VIOLET, SETUP_FREE_PLACEMENTS,
    SIDES, SOURCE_PARK, STAGES,
    STAIRS, S_DRAW, S_GAME_OVER, S_GATE_PLACE, S_KING_BONUS, S_MADAME_BONUS,
    S_MOVES, S_RECRUIT, S_SETUP, S_SOURCE, S_STEP1, S_STEP2, S_STEP3, S_STEP4, S_STEP5,
    S_TURN_END, S_TURN_START, S_WINDOW1, S_WINDOW2, S_WINDOW3, S_WINDOW4, S_WINDOW5, TERMINAL,
    WINDOW_CARDS, room_adjacency,
)
from .components import ComponentSet, default_components
from .errors import IllegalAction
from .options import RuleOptions
from .snapshot import Snapshot
from .validate import SnapshotError, check_snapshot
from . import zobrist
from . import determinize as det

WINDOW_STAGES = (S_WINDOW1, S_WINDOW2, S_WINDOW3, S_WINDOW4, S_WINDOW5)
AFTER_WINDOW = {S_WINDOW1: S_STEP1, S_WINDOW2: S_STEP2, S_WINDOW3: S_STEP3,
                S_WINDOW4: S_STEP4, S_WINDOW5: S_TURN_END}


class ReferenceState:
    """One position of a game, mutable; `copy()` before trying an action you want to undo."""

    def __init__(self, snap: Snapshot, components: ComponentSet, options: RuleOptions):
        self.s = snap
        self.components = components
        self.options = options
        self.adjacent = room_adjacency(snap.layout)

    # ------------------------------------------------------------------ construction
    @classmethod
    def new_game(cls, n_players: int, seed: int = 0, components: ComponentSet | None = None,
                 options: RuleOptions | None = None, first_game: bool = False,
                 deal=None, layout=None) -> "ReferenceState":
        from .deal import initial_snapshot
        components = components or default_components()
        options = options or RuleOptions()
        snap = initial_snapshot(n_players, seed, components, first_game, deal, layout)
        state = cls(snap, components, options)
        state._advance()
        return state

    @classmethod
    def from_snapshot(cls, snap: Snapshot, components: ComponentSet | None = None,
                      options: RuleOptions | None = None) -> "ReferenceState":
        """A state holding `snap` as it is (no automatic step runs); SnapshotError, as for the
        Cython State, unless the game waits there with a legal action (engine/validate.py)."""
        components = components or default_components()
        check_snapshot(snap, components)
        state = cls(snap.copy(), components, options or RuleOptions())
        probe = state.copy()
        probe._advance()
        name = STAGES[snap.stage]
        if probe.s != state.s:
            where = "" if probe.s.stage == snap.stage else \
                f": its automatic steps go on to {STAGES[probe.s.stage]}"
            raise SnapshotError("stage", f"the game does not wait at {name} in this position{where}")
        if snap.stage != S_GAME_OVER and not state.legal_actions():
            raise SnapshotError("stage", f"{name} offers no legal action in this position")
        return state

    def snapshot(self) -> Snapshot:
        return self.s.copy()

    def copy(self) -> "ReferenceState":
        return ReferenceState(self.s.copy(), self.components, self.options)

    # ------------------------------------------------------------------ queries
    @property
    def n_players(self) -> int:
        return self.s.n_players

    @property
    def stage(self) -> int:
        return self.s.stage

    @property
    def to_move(self) -> int:
        return self.s.to_move

    @property
    def observer(self) -> int:
        return self.s.observer

    @property
    def round(self) -> int:
        return self.s.round

    def current_player(self) -> int:
        if self.s.stage == S_GAME_OVER:
            return TERMINAL
        if self.s.stage == S_DRAW:
            return CHANCE
        return self.s.to_move

    def is_terminal(self) -> bool:
        return self.s.stage == S_GAME_OVER

    def is_chance(self) -> bool:
        return self.s.stage == S_DRAW

    @property
    def key(self) -> int:
        return zobrist.full_key(self.s)

    def compute_key(self) -> int:
        return zobrist.full_key(self.s)

    def info_key(self, seat: int) -> int:
        return zobrist.info_key(self.s, seat)

    def tiles_in_park(self) -> int:
        return sum(1 for t in self.s.tile_at if t >= 0)

    def privileges(self, seat: int) -> list:
        """Per privilege code: how many owned tiles carry it (INCOME: the gold per turn)."""
        counts = [0] * 10
        for tile_index, owner in enumerate(self.s.owner):
            if owner == seat:
                tile = self.components.tiles[tile_index]
                counts[tile.privilege] += tile.amount if tile.privilege == P_INCOME else 1
        return counts

    def cardinal_weight(self, seat: int) -> int:
        return self.s.rooms[seat][CARDINAL] + 2 * self.privileges(seat)[P_FAVOUR]

    def has_majority(self, seat: int, room: int) -> bool:
        """RULES.md §3 'Majority and the Cardinal', judged now, for the active player."""
        rooms = self.s.rooms
        own = rooms[seat][room]
        if own == 0:
            return False
        others = [q for q in range(self.s.n_players) if q != seat]
        best_other = max(rooms[q][room] for q in others)
        if own > best_other:
            return True
        if own < best_other:
            return False
        if self.s.intrigue and seat == self.s.to_move:
            return True
        weight = self.cardinal_weight(seat)
        tied = [q for q in others if rooms[q][room] == own]
        return weight >= 1 and all(weight > self.cardinal_weight(q) for q in tied)

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self) -> list:
        """Every option of the current decision point, in ascending (canonical) order."""
        s = self.s
        p = s.to_move
        st = s.stage
        if st == S_GAME_OVER:
            return []
        if st == S_SETUP:
            first = GATE if self.options.setup_on_gate else PARADE
            return [A_ROOM + r for r in range(first, N_ROOMS)]
        if st in WINDOW_STAGES:
            allowed = WINDOW_CARDS[WINDOW_STAGES.index(st)]
            if s.observer >= 0 and s.observer != p:
                held = [c for c in range(N_CARDS) if s.deck[c] > 0]   # unknown to the observer
            else:
                held = [c for c in range(N_CARDS) if s.hand[p][c] > 0]
            return [A_PLAY + c for c in held if allowed[c]] + [A_CONTINUE]
        if st == S_STEP1:
            return [A_GATE + k for k in range(s.gate_max + 1)]
        if st == S_SOURCE:
            return [A_ROOM + r for r in self._source_rooms(p, s.source_for)]
        if st == S_MOVES:
            moves = [A_MOVE + a * N_ROOMS + b
                     for a in range(N_ROOMS) if s.rooms[p][a] > 0
                     for b in self.adjacent[a]]
            return moves + [A_END]
        if st in (S_KING_BONUS, S_MADAME_BONUS):
            return [A_TAKE, A_DECLINE]
        if st == S_RECRUIT:
            return [A_RECRUIT + sq for sq in range(N_SQUARES) if self._can_recruit(p, sq)] + [A_END]
        if st == S_DRAW:
            if s.observer >= 0 and s.observer != p:
                return [A_DRAW_UNKNOWN]
            return [A_DRAW + c for c in range(N_CARDS) if s.deck[c] > 0]
        raise AssertionError(f"no decision at stage {st}")

    def deck_counts(self) -> list:
        """Per card type, the draw pile's count (in a view: the observer's unknown pool)."""
        return list(self.s.deck)

    def chance_outcomes(self) -> list:
        """(action, probability) for each outcome of the pending chance event."""
        s = self.s
        if s.stage != S_DRAW:
            return []
        if s.observer >= 0 and s.observer != s.to_move:
            return [(A_DRAW_UNKNOWN, 1.0)]
        total = sum(s.deck)
        return [(A_DRAW + c, s.deck[c] / total) for c in range(N_CARDS) if s.deck[c] > 0]

    def _source_rooms(self, seat: int, target: int) -> list:
        """Rooms a servant may be taken from when the play area is empty (never the target)."""
        return [r for r in range(N_ROOMS) if r != target and self.s.rooms[seat][r] > 0]

    def _can_recruit(self, seat: int, sq: int) -> bool:
        s = self.s
        tile_index = s.tile_at[sq]
        if tile_index < 0:
            return False
        tile = self.components.tiles[tile_index]
        rooms = s.rooms[seat]
        return ((s.rec > 0 or rooms[OFFICE] > 0)
                and s.gold[seat] >= tile.gold
                and s.turq + rooms[KING] >= tile.turquoise
                and s.viol + rooms[MADAME] >= tile.violet)

    # ------------------------------------------------------------------ apply
    def apply(self, action: int) -> None:
        """Perform one decision or chance outcome, then run the automatic steps after it."""
        if action not in self.legal_actions():
            raise IllegalAction(f"action {action} is not legal here")
        s = self.s
        p = s.to_move
        st = s.stage
        if st == S_SETUP:
            s.area[p] -= 1
            s.rooms[p][action - A_ROOM] += 1
            s.setup_count += 1
            self._after_setup_placement()
        elif st in WINDOW_STAGES:
            if action == A_CONTINUE:
                s.stage = AFTER_WINDOW[st]
            else:
                self._play_card(p, action - A_PLAY)
        elif st == S_STEP1:
            s.gate_left = action - A_GATE
            s.stage = S_GATE_PLACE
        elif st == S_SOURCE:
            self._place_from_room(p, action - A_ROOM)
        elif st == S_MOVES:
            if action == A_END:
                s.moves_left = 0
            else:
                a, b = divmod(action - A_MOVE, N_ROOMS)
                s.rooms[p][a] -= 1
                s.rooms[p][b] += 1
                s.moves_left -= 1
            if s.moves_left == 0:
                s.stage = S_WINDOW3
        elif st in (S_KING_BONUS, S_MADAME_BONUS):
            room = KING if st == S_KING_BONUS else MADAME
            s.stage = S_MADAME_BONUS if st == S_KING_BONUS else S_WINDOW4
            if action == A_TAKE:
                self._place(p, room, next_stage=s.stage)
        elif st == S_RECRUIT:
            if action == A_END:
                s.stage = S_STEP5
            else:
                self._recruit(p, action - A_RECRUIT)
        elif st == S_DRAW:
            self._draw(p, action)
        self._advance()

    def _after_setup_placement(self) -> None:
        s = self.s
        if s.setup_count == SETUP_FREE_PLACEMENTS * s.n_players:
            s.to_move = 0
            s.round = 1
            s.stage = S_TURN_START
        else:
            s.to_move = s.setup_count // SETUP_FREE_PLACEMENTS

    def _play_card(self, p: int, card: int) -> None:
        """RULES.md §6: the card's effect; it goes to the discard pile (HONOUR stays out)."""
        s = self.s
        if s.observer >= 0 and s.observer != p:
            s.deck[card] -= 1          # the card leaves the observer's unknown pool
        else:
            s.hand[p][card] -= 1
        s.hand_size[p] -= 1
        s.played_since[p][card] += 1
        if card == C_HONOUR:
            s.honours[p] += 1
        else:
            s.discard[card] += 1
        if card == C_GOLD:
            s.gold[p] += 3
        elif card == C_MOVES:
            s.moves_bonus += 2
        elif card == C_GUARDS:
            s.guards += 2
        elif card == C_KINGSEAL:
            s.turq += 1
        elif card == C_MADAMESEAL:
            s.viol += 1
        elif card == C_LETTER:
            s.rec += 1
        elif card == C_INTRIGUE:
            s.intrigue = 1
        elif card == C_FOOTMAN and s.supply[p] > 0:
            s.supply[p] -= 1
            s.area[p] += 1

    def _place(self, p: int, target: int, next_stage: int, square: int = -1) -> None:
        """Put one servant on `target` (a room, or the park square `square`).

        It comes from the play area; if that is empty, from another room (a decision when
        more than one room qualifies). With none anywhere, nothing is placed.
        """
        s = self.s
        if s.area[p] > 0:
            s.area[p] -= 1
            self._put(p, target, square)
            s.stage = next_stage
            return
        rooms = self._source_rooms(p, target)
        if len(rooms) == 1:
            s.rooms[p][rooms[0]] -= 1
            self._put(p, target, square)
            s.stage = next_stage
        elif not rooms:
            s.stage = next_stage
        else:
            s.source_for = target      # remembered until the SOURCE decision places it
            s.park_target = square
            s.stage = S_SOURCE

    def _put(self, p: int, target: int, square: int) -> None:
        if target == SOURCE_PARK:
            self.s.park_servant[square] = p
        else:
            self.s.rooms[p][target] += 1

    def _place_from_room(self, p: int, room: int) -> None:
        """Resolve a SOURCE decision: take the servant from `room` and finish the placement."""
        s = self.s
        target = s.source_for
        s.rooms[p][room] -= 1
        self._put(p, target, s.park_target)
        s.source_for = 0
        s.park_target = -1
        if target == GATE:
            s.gate_left -= 1
            s.stage = S_GATE_PLACE
        elif target == KING:
            s.stage = S_MADAME_BONUS
        elif target == MADAME:
            s.stage = S_WINDOW4
        else:
            s.stage = S_RECRUIT

    def _recruit(self, p: int, sq: int) -> None:
        """RULES.md §3 step 4, one tile: pay, take it, SUPPLY at once, then the park servant."""
        s = self.s
        tile_index = s.tile_at[sq]
        tile = self.components.tiles[tile_index]
        if s.rec > 0:
            s.rec -= 1
        else:
            s.rooms[p][OFFICE] -= 1
            s.area[p] += 1
        from_pool = min(s.turq, tile.turquoise)
        s.turq -= from_pool
        s.rooms[p][KING] -= tile.turquoise - from_pool
        s.area[p] += tile.turquoise - from_pool
        from_pool = min(s.viol, tile.violet)
        s.viol -= from_pool
        s.rooms[p][MADAME] -= tile.violet - from_pool
        s.area[p] += tile.violet - from_pool
        s.gold[p] -= tile.gold
        s.tile_at[sq] = -1
        s.owner[tile_index] = p
        if tile.privilege == P_SUPPLY:
            moved = min(tile.amount, s.supply[p])
            s.supply[p] -= moved
            s.area[p] += moved
        s.stage = S_RECRUIT
        if sq in BORDER:
            if s.area[p] > 0 or self.options.room_fallback:
                self._place(p, SOURCE_PARK, next_stage=S_RECRUIT, square=sq)

    def _draw(self, p: int, action: int) -> None:
        s = self.s
        s.deck_size -= 1
        s.hand_size[p] += 1
        s.drawn_n[p] += 1
        s.draws_left -= 1
        if action != A_DRAW_UNKNOWN:
            card = action - A_DRAW
            s.deck[card] -= 1
            s.hand[p][card] += 1
            s.drawn_t[p][card] += 1

    def _reshuffle(self) -> None:
        """The discard pile (HONOUR cards are never in it) becomes the new draw pile."""
        s = self.s
        for c in range(N_CARDS):
            s.deck[c] += s.discard[c]
            s.epoch[c] = s.discard[c]
            s.discard[c] = 0
        s.deck_size = sum(s.epoch)
        for q in range(s.n_players):
            s.drawn_n[q] = 0
            s.drawn_t[q] = [0] * N_CARDS
            s.played_since[q] = [0] * N_CARDS

    # ------------------------------------------------------------------ automatic steps
    def _advance(self) -> None:
        """Run automatic steps until a decision point, a chance event or the end."""
        s = self.s
        while True:
            p = s.to_move
            st = s.stage
            if st == S_SETUP or st == S_GAME_OVER:
                return
            if st == S_TURN_START:
                self._turn_start(p)
                s.stage = S_WINDOW1
            elif st in WINDOW_STAGES:
                if s.hand_size[p] > 0:
                    return
                s.stage = AFTER_WINDOW[st]
            elif st == S_STEP1:
                parade = (s.rooms[p][PARADE] + self.has_majority(p, PARADE)
                          + self.privileges(p)[P_REINFORCE] + s.guards)
                placeable = s.area[p] + sum(s.rooms[p][r] for r in range(N_ROOMS) if r != GATE)
                s.gate_max = min(parade, placeable)
                if s.gate_max >= 1:
                    return
                s.stage = S_WINDOW2
            elif st == S_GATE_PLACE:
                if s.gate_left == 0:
                    s.gate_max = 0
                    s.stage = S_WINDOW2
                else:
                    s.gate_left -= 1
                    self._place(p, GATE, next_stage=S_GATE_PLACE)
                    if s.stage == S_SOURCE:
                        s.gate_left += 1       # still owed: the SOURCE decision places it
                        return
            elif st == S_STEP2:
                s.moves_left = (s.rooms[p][STAIRS] + self.has_majority(p, STAIRS)
                                + self.privileges(p)[P_MOVE] + s.moves_bonus)
                if s.moves_left > 0 and sum(s.rooms[p]) > 0:
                    s.stage = S_MOVES
                    return
                s.moves_left = 0
                s.stage = S_WINDOW3
            elif st == S_MOVES:
                return
            elif st == S_STEP3:
                s.gold[p] += s.rooms[p][MINT] + self.has_majority(p, MINT)
                s.stage = S_KING_BONUS
            elif st in (S_KING_BONUS, S_MADAME_BONUS):
                room = KING if st == S_KING_BONUS else MADAME
                if self.has_majority(p, room) and self._can_place_bonus(p, room):
                    return
                s.stage = S_MADAME_BONUS if st == S_KING_BONUS else S_WINDOW4
            elif st == S_STEP4:
                privileges = self.privileges(p)
                s.turq += privileges[P_TURQUOISE]
                s.viol += privileges[P_VIOLET]
                s.rec += privileges[P_SECRETARY]
                s.stage = S_RECRUIT
            elif st == S_RECRUIT:
                if len(self.legal_actions()) > 1:
                    return
                s.stage = S_STEP5
            elif st == S_SOURCE:
                return
            elif st == S_STEP5:
                s.turq = s.viol = s.rec = 0
                s.draws_left = s.rooms[p][BACKDOOR] + self.privileges(p)[P_CARDS]
                s.stage = S_DRAW
            elif st == S_DRAW:
                if s.draws_left > 0 and s.deck_size == 0 and sum(s.discard) > 0:
                    self._reshuffle()
                if s.draws_left > 0 and s.deck_size > 0:
                    return
                s.draws_left = 0
                s.stage = S_WINDOW5
            elif st == S_TURN_END:
                self._turn_end(p)
            else:
                raise AssertionError(f"unknown stage {st}")

    def _can_place_bonus(self, p: int, room: int) -> bool:
        if self.s.area[p] > 0:
            return True
        return self.options.room_fallback and bool(self._source_rooms(p, room))

    def _turn_start(self, p: int) -> None:
        """RULES.md §7 end trigger (starting player only), then step 0 income."""
        s = self.s
        if p == 0 and not s.last_round and self.tiles_in_park() <= self.options.end_trigger_tiles:
            s.last_round = 1
        s.gold[p] += self.privileges(p)[P_INCOME]

    def _turn_end(self, p: int) -> None:
        s = self.s
        s.intrigue = s.guards = s.moves_bonus = 0
        nxt = (p + 1) % s.n_players
        if nxt == 0:
            if s.last_round or s.round >= self.options.round_cap:
                s.stage = S_GAME_OVER
                return
            s.round += 1
        s.to_move = nxt
        s.stage = S_TURN_START

    # ------------------------------------------------------------------ scoring
    def park_points(self) -> list:
        """RULES.md §7 item 4: each side scored apart; tied players share, rounded down."""
        n = self.s.n_players
        points = [0] * n
        for side, squares in enumerate(SIDES):
            counts = [0] * n
            for sq in squares:
                if self.s.park_servant[sq] >= 0:
                    counts[self.s.park_servant[sq]] += 1
            place_points = list(self.components.park_points[side])
            place = 0
            for count in sorted({c for c in counts if c > 0}, reverse=True):
                group = [q for q in range(n) if counts[q] == count]
                shared = sum(place_points[place:place + len(group)])
                for q in group:
                    points[q] += shared // len(group)
                place += len(group)
        return points

    def scores(self) -> list:
        """Victory points as the final scoring would count them now (RULES.md §7)."""
        s = self.s
        park = self.park_points()
        out = []
        for q in range(s.n_players):
            tiles = sum(self.components.tiles[t].vp for t, o in enumerate(s.owner) if o == q)
            out.append(tiles + self.options.honour_vp * s.honours[q]
                       + min(s.hand_size[q], self.options.hand_vp_cap) + park[q])
        return out

    def returns(self) -> list:
        """Per seat: 1/k for each of the k winners (most VP, then most gold), else 0."""
        scores = self.scores()
        best = max(zip(scores, self.s.gold[:self.s.n_players]))
        winners = [q for q in range(self.s.n_players) if (scores[q], self.s.gold[q]) == best]
        return [1.0 / len(winners) if q in winners else 0.0 for q in range(self.s.n_players)]

    # ------------------------------------------------------------------ hidden information
    def view(self, seat: int) -> "ReferenceState":
        """The position as `seat` sees it: other hands and the deck merged into one unknown pool."""
        snap = det.view_snapshot(self.s, seat)
        return ReferenceState(snap, self.components, self.options)

    def public_view(self) -> "ReferenceState":
        """The position as an onlooker sees it: every hand unknown (observer = 4, no seat)."""
        return ReferenceState(det.view_snapshot(self.s, det.PUBLIC), self.components, self.options)

    def determinize(self, seat: int, rng) -> "ReferenceState":
        """A full state that agrees with everything `seat` knows (RULES.md §8)."""
        snap = det.determinize_snapshot(self.s, seat, rng)
        return ReferenceState(snap, self.components, self.options)


def servants_accounted(state) -> list:
    """Per seat, servants in rooms + play area + supply + park: always 25 (a test invariant)."""
    s = state.snapshot()
    return [sum(s.rooms[q]) + s.area[q] + s.supply[q]
            + sum(1 for o in s.park_servant if o == q) for q in range(s.n_players)]


__all__ = ["ReferenceState", "servants_accounted"]
