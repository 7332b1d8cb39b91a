"""Static evaluation of two-player positions for the computer opponent.

A position is scored from the canonical key that successor generation hands
out with every successor (home signatures by seat, then the other systems'
signatures, see ``homeworlds.rules.fast``), so that thousands of successors
can be scored without building a ``GameState`` for each. Everything that
depends on one system alone is computed once per signature and cached.

The score is in "pips" (a small ship is worth about 1) from one seat's point
of view; ``WIN`` marks a won position. ``Evaluator`` scores what the brief
asks for: home defence (ships at home, their size, the colours available
there, both home stars), fleet size and ship sizes, access to the four
colours, economy (the size of the next piece each player could build, with
the player to move getting it first), threats the player to move can carry
out at once (captures, catastrophes — above all at a home) and mobility
(ships within reach of the enemy home). ``SearchEvaluator`` is level 4's: the same with
larger large ships and catastrophe threats a yellow sacrifice brings about anywhere.
``MaterialEvaluator`` is the deliberately simple baseline used by ``GreedyPlayer``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from homeworlds.rules import (
    OVERPOPULATION,
    GameState,
    SignatureLayout,
    canonical_key,
    layout_for,
)

WIN = 10_000.0

RED, YELLOW, GREEN, BLUE = range(4)


@dataclass(frozen=True, slots=True)
class Weights:
    """The evaluation's knobs (pips per unit)."""

    #: Value of a ship by size (index 1..3); large ships capture anything and sacrifice for 3.
    ship: tuple[float, float, float, float] = (0.0, 1.0, 2.0, 3.3)
    #: Each home star still standing (a one-star home dies to a single catastrophe).
    home_star: float = 5.0
    #: Having at least one and at least two own ships at home.
    first_home_ship: float = 3.0
    second_home_ship: float = 2.0
    #: Per size of the largest own ship at home.
    home_largest: float = 1.0
    #: A colour available at home (star or own ship there), by colour r, y, g, b.
    home_color: tuple[float, float, float, float] = (0.3, 1.5, 2.0, 1.5)
    #: A colour available anywhere the player has a ship, by colour.
    access: tuple[float, float, float, float] = (1.2, 1.8, 2.5, 1.8)
    #: Each distinct colour among the player's own ships (ship colours travel with them).
    ship_color: float = 0.6
    #: The best build the player could make, as a fraction of that ship's value:
    #: the player to move builds it next, the other only after.
    build_to_move: float = 0.7
    build_waiting: float = 0.25
    #: Threats the player to move can carry out this turn, and the other's, later.
    threat_to_move: float = 0.85
    threat_waiting: float = 0.3
    #: Per pip of own ships in a system connected to the enemy home.
    reach: float = 0.15
    #: Enemy pips sitting in one's home.
    invader: float = 0.4
    #: Systems with own ships (spreading out), up to ``spread_cap``.
    spread: float = 0.4
    spread_cap: int = 4


class _Sys:
    """What the evaluation needs from one system signature (cached per signature)."""

    __slots__ = ("stars", "star_colors", "size_mask", "n_stars", "totals", "pieces",
                 "count", "largest", "colors", "value", "by_size", "red_ships",
                 "color_value", "color_stars", "color_counts", "yellow_max")

    def __init__(self, layout: SignatureLayout, sig: int, weights: Weights):
        info = layout.info(sig)
        seats = layout.seats
        self.stars = info.stars
        self.star_colors = info.star_colors
        self.size_mask = info.size_mask
        self.n_stars = len(info.stars)
        self.totals = info.color_totals
        pieces = [0] * 12
        for k in info.stars:
            pieces[k] += 1
        ships: list[list[int]] = []
        value: list[float] = []
        by_size: list[tuple[int, ...]] = []  # per seat: ships of size 0 (unused), 1, 2, 3
        red_ships: list[int] = []
        color_value: list[tuple[float, ...]] = []  # per seat: ship value of each colour
        w = weights.ship
        for s in range(seats):
            fleet = [0] * 12
            sizes = [0, 0, 0, 0]
            cv = [0.0, 0.0, 0.0, 0.0]
            red = 0
            for k in info.kinds[s]:
                n = layout.ship_count(sig, s, k)
                fleet[k] = n
                pieces[k] += n
                size = k % 3 + 1
                sizes[size] += n
                cv[k // 3] += n * w[size]
                if k // 3 == RED:
                    red = max(red, size)
            ships.append(fleet)
            value.append(sum(cv))
            by_size.append(tuple(sizes))
            red_ships.append(red)
            color_value.append(tuple(cv))
        self.pieces = pieces
        self.count = info.count
        self.largest = info.largest
        self.colors = info.colors
        self.value = value
        self.by_size = by_size
        self.red_ships = red_ships
        self.color_value = color_value
        self.color_stars = tuple(sum(1 for k in info.stars if k // 3 == c) for c in range(4))
        #: Per seat: how many ships of each colour; the size of its largest yellow ship.
        self.color_counts = tuple(tuple(sum(fleet[c * 3:c * 3 + 3]) for c in range(4))
                                  for fleet in ships)
        self.yellow_max = tuple(max((k % 3 + 1 for k in range(3, 6) if fleet[k]), default=0)
                                for fleet in ships)

    def access(self, seat: int) -> int:
        return self.star_colors | self.colors[seat]

    def largest_capturable(self, victim: int, max_size: int) -> int:
        """Size of the victim's largest ship here no bigger than ``max_size`` (0: none)."""
        sizes = self.by_size[victim]
        for size in range(max_size, 0, -1):
            if sizes[size]:
                return size
        return 0


class Evaluator:
    """The level-1 evaluation. ``score_key`` is the hot path; see the module doc."""

    def __init__(self, rules, players: int = 2, weights: Weights | None = None):
        if players != 2:
            raise ValueError("the computer opponent plays two-player games only")
        self.weights = weights or Weights()
        self.copies = rules.bank_copies(players)
        self.layout = layout_for(players, self.copies)
        self._cache: dict[int, _Sys] = {}

    def system(self, sig: int) -> _Sys:
        got = self._cache.get(sig)
        if got is None:
            got = self._cache[sig] = _Sys(self.layout, sig, self.weights)
        return got

    def score_state(self, state: GameState, seat: int) -> float:
        if state.result is not None:
            return outcome_score(state, seat)
        return self.score_key(canonical_key(state), seat, state.to_move)

    def score_key(self, key: tuple, seat: int, to_move: int) -> float:
        """Score of the position ``key`` for ``seat`` when ``to_move`` moves next."""
        homes, others = key
        system = self.system
        home_sys = [None if h is None else system(h) for h in homes]
        terminal = terminal_score(homes, seat, home_sys)
        if terminal is not None:
            return terminal
        all_sys = home_sys + [system(sig) for sig in others]
        return self._material_and_position(home_sys, all_sys, seat, to_move)

    def _material_and_position(self, home_sys: list, all_sys: list, seat: int,
                               to_move: int) -> float:
        """``score_key`` once the systems are looked up and neither home is lost."""
        copies = self.copies
        bank = [copies - sum(column) for column in zip(*[s.pieces for s in all_sys], strict=True)]
        total = 0.0
        for me in (0, 1):
            part = self._side(me, 1 - me, home_sys, all_sys, bank, to_move)
            total += part if me == seat else -part
        return total

    def _side(self, me: int, opp: int, homes: list[_Sys], systems: list[_Sys],
              bank: list[int], to_move: int) -> float:
        w = self.weights
        enemy_home = homes[opp]
        score = self._home_defence(me, opp, homes[me])
        # Fleet, access, mobility.
        access = 0
        ship_colors = 0
        spread = 0
        reach = 0.0
        builds = 0
        for s in systems:
            if not s.count[me]:
                continue
            score += s.value[me]
            spread += 1
            access |= s.access(me)
            ship_colors |= s.colors[me]
            if not (s.size_mask & enemy_home.size_mask):
                reach += s.value[me]
            if s.access(me) >> GREEN & 1:
                builds |= s.colors[me]
        for c in range(4):
            if access >> c & 1:
                score += w.access[c]
            if ship_colors >> c & 1:
                score += w.ship_color
        score += w.spread * min(spread, w.spread_cap) + w.reach * reach
        # Economy: the biggest ship one build would bring.
        best_build = self._best_build(builds, bank)
        score += best_build * (w.build_to_move if me == to_move else w.build_waiting)
        # Threats this side could carry out on its next turn.
        threat = self._threat(me, opp, systems)
        score += threat * (w.threat_to_move if me == to_move else w.threat_waiting)
        return score

    def _home_defence(self, me: int, opp: int, home: _Sys) -> float:
        """Stars, ships and colours ``me`` holds at home, less the enemy pips there."""
        w = self.weights
        score = w.home_star * home.n_stars
        n_home = home.count[me]
        if n_home:
            score += w.first_home_ship + w.home_largest * home.largest[me]
        if n_home >= 2:
            score += w.second_home_ship
        home_colors = home.access(me)
        for c in range(4):
            if home_colors >> c & 1:
                score += w.home_color[c]
        return score - w.invader * home.value[opp]

    def _best_build(self, builds: int, bank: list[int]) -> float:
        """The weight of the biggest ship one build of a colour in ``builds`` would bring
        (the bank gives the smallest of a colour)."""
        ship = self.weights.ship
        best = 0.0
        for c in range(4):
            if builds >> c & 1:
                for k in range(c * 3, c * 3 + 3):
                    if bank[k]:
                        best = max(best, ship[k % 3 + 1])
                        break
        return best

    def _threat(self, me: int, opp: int, systems: list[_Sys]) -> float:
        """The most ``me`` could gain in one turn by capture or by a catastrophe (gain
        counts the enemy's loss plus one's own gain, minus one's own loss). ``systems``
        lists the homes first, by seat."""
        threat = self._capture_threat(me, opp, systems)
        return max(threat, self._catastrophe_threat(me, opp, systems))

    def _capture_threat(self, me: int, opp: int, systems: list[_Sys]) -> float:
        """The most one capture (free red, or red sacrifices) would gain ``me`` now."""
        w = self.weights.ship
        free_capture = 0.0
        capturable: list[float] = []
        my_red = 0
        for s in systems:
            mine = s.count[me]
            if not mine:
                continue
            my_red = max(my_red, s.red_ships[me])
            if not s.count[opp]:
                continue
            size = s.largest_capturable(opp, s.largest[me])
            if not size:
                continue
            gain = 2 * w[size]
            if s.access(me) >> RED & 1:
                free_capture = max(free_capture, gain)
            # A red sacrifice captures anywhere one has a big enough ship.
            sizes = s.by_size[opp]
            for z in range(s.largest[me], 0, -1):
                capturable.extend([2 * w[z]] * sizes[z])
        threat = free_capture
        if my_red and capturable:
            capturable.sort(reverse=True)
            threat = max(threat, sum(capturable[:my_red]) - w[my_red])
        return threat

    def _catastrophe_threat(self, me: int, opp: int, systems: list[_Sys]) -> float:
        """Catastrophes: a colour already at four anywhere, or at three where one of one's
        own ships could add the fourth (it is there, or one of that colour is next door)."""
        threat = 0.0
        for i, s in enumerate(systems):
            for c in range(4):
                n = s.totals[c]
                if n < OVERPOPULATION - 1:
                    continue
                damage = self._catastrophe_damage(s, c, me, opp, home_of=i)
                if damage <= 0:
                    continue
                if n >= OVERPOPULATION:
                    threat = max(threat, damage)
                    if i == opp and _doomed_home(s, opp):
                        threat = max(threat, WIN / 100)
                elif s.count[me] or any(o.colors[me] >> c & 1 for o in systems
                                        if o is not s and not o.size_mask & s.size_mask):
                    threat = max(threat, 0.5 * damage)
        return threat

    def _catastrophe_damage(self, s: _Sys, c: int, me: int, opp: int, home_of: int) -> float:
        """What a catastrophe of colour ``c`` at ``s`` is worth to ``me`` (enemy loss minus
        own loss). ``home_of``: the seat whose home ``s`` is (homes come first in the
        system list, by seat), any other number for a colony. A lost home star counts
        double a large ship; a colony that loses its only star takes every ship with it."""
        w = self.weights.ship
        stars = s.color_stars[c]
        if stars and stars == s.n_stars and home_of not in (me, opp):
            return s.value[opp] - s.value[me]
        damage = s.color_value[opp][c] - s.color_value[me][c]
        if stars:
            star_value = 2 * w[3] * stars
            if home_of == opp:
                damage += star_value
                if stars == s.n_stars:
                    damage += WIN / 100  # every enemy home star gone: near-decisive
            elif home_of == me:
                damage -= star_value
        return damage


def terminal_score(homes: tuple[int | None, ...], seat: int,
                   home_info: list[_Sys | None]) -> float | None:
    """WIN / -WIN / 0 (draw) when a seat has lost its home, None while both stand.

    A home is lost when it is gone (``None``) or its signature shows no star or no ship
    of its owner (successor keys may keep such a home in place)."""
    lost = [h is None or info is None or not info.n_stars or not info.count[s]
            for s, (h, info) in enumerate(zip(homes, home_info, strict=True))]
    mine = lost[seat]
    theirs = any(x for s, x in enumerate(lost) if s != seat)
    if mine and theirs:
        return 0.0
    if mine:
        return -WIN
    if theirs:
        return WIN
    return None


def outcome_score(state: GameState, seat: int) -> float:
    result = state.result
    if result is None:
        raise ValueError("the game is not over")
    if not result.winners:
        return 0.0
    return WIN if seat in result.winners else -WIN


class MaterialEvaluator:
    """The greedy baseline: surviving ship material, distinct ship colours, the next build.

    "Surviving": pieces of a colour that is overpopulated where they stand are counted as
    lost (whoever moves next can clear them), and a home that such a catastrophe would
    empty counts as lost. Nothing else about the opponent's possible replies is looked at.
    """

    def __init__(self, rules, players: int = 2):
        self.inner = Evaluator(rules, players)

    def score_state(self, state: GameState, seat: int) -> float:
        if state.result is not None:
            return outcome_score(state, seat)
        return self.score_key(canonical_key(state), seat, state.to_move)

    def score_key(self, key: tuple, seat: int, to_move: int) -> float:
        homes, others = key
        inner = self.inner
        maybe_homes = [None if h is None else inner.system(h) for h in homes]
        terminal = terminal_score(homes, seat, maybe_homes)
        if terminal is not None:
            return terminal
        home_sys = cast(list[_Sys], maybe_homes)  # both homes stand: terminal_score said so
        systems = home_sys + [inner.system(sig) for sig in others]
        w = inner.weights.ship
        bank = [inner.copies] * 12
        for s in systems:
            for k in range(12):
                bank[k] -= s.pieces[k]
        total = 0.0
        for me in (0, 1):
            if _doomed_home(home_sys[me], me):
                part = -WIN / 10
            else:
                part = 0.0
            colors = 0
            builds = 0
            for s in systems:
                if not s.count[me]:
                    continue
                over = [c for c in range(4) if s.totals[c] >= OVERPOPULATION]
                part += s.value[me] - sum(s.color_value[me][c] for c in over)
                colors |= s.colors[me]
                if s.access(me) >> GREEN & 1:
                    builds |= s.colors[me]
            best = 0.0
            for c in range(4):
                if builds >> c & 1:
                    smallest = next((k for k in range(c * 3, c * 3 + 3) if bank[k]), None)
                    if smallest is not None:
                        best = max(best, w[smallest % 3 + 1])
            part += 0.5 * bin(colors).count("1") + 0.3 * best
            total += part if me == seat else -part
        return total


def _two_jumps(origin: _Sys, target: _Sys, systems: list[_Sys]) -> bool:
    """Whether a ship can go from ``origin`` to ``target`` (not connected) in two moves:
    through a new system of a size neither has, or an existing one sharing no size with
    either (two two-star homes of different sizes, e.g. 1-2 and 1-3, have neither)."""
    sizes = origin.size_mask | target.size_mask
    if sizes != 0b111:
        return True
    return any(not m.size_mask & sizes for m in systems)


def _doomed_home(home: _Sys, seat: int) -> bool:
    """Clearing the home's overpopulated colours would leave it without stars or own ships."""
    over = 0
    for c in range(4):
        if home.totals[c] >= OVERPOPULATION:
            over |= 1 << c
    if not over:
        return False
    return not (home.star_colors & ~over) or not (home.colors[seat] & ~over)


#: The search's material weights: a large ship worth four small ones (it captures anything,
#: and a large sacrifice is three actions); measured against the C++ AI, see
#: docs/computer-opponent.md, *Tuning*.
SEARCH_WEIGHTS = Weights(ship=(0.0, 1.0, 2.0, 4.0))


class SearchEvaluator(Evaluator):
    """``Evaluator`` with the search's material weights (``SEARCH_WEIGHTS``), scores kept
    for the positions the search meets again, and, among the threats of the side to
    move, catastrophes a yellow sacrifice brings about anywhere (``_threat``).

    It once added *pressure* on each home (attackers inside and next door, red at hand,
    colours one move short of a catastrophe, lone defenders, weighted up far ahead); level
    4 plays better without it, against both yardsticks (docs/computer-opponent.md,
    *Tuning*)."""

    def __init__(self, rules, players: int = 2, weights: Weights | None = None):
        super().__init__(rules, players, weights or SEARCH_WEIGHTS)
        self._scores: dict[tuple, float] = {}
        #: the least a sacrificed yellow can cost (the bound of ``_threat``)
        self._least_ship = min(self.weights.ship[1:])

    def score_key(self, key: tuple, seat: int, to_move: int) -> float:
        # The search meets the same positions again and again (turns that commute reach
        # one position in two orders): scores are kept, for the side to move.
        memo = self._scores
        got = memo.get((key, to_move))
        if got is None:
            got = memo[(key, to_move)] = super().score_key(key, 0, to_move)
            if len(memo) > 400_000:
                memo.clear()
        return got if seat == 0 else -got

    def _threat(self, me: int, opp: int, systems: list[_Sys]) -> float:
        """``Evaluator._threat``, and catastrophes a yellow sacrifice brings about: the
        last one or two pieces of a colour moved in from one or two jumps away, as many
        moves as the largest yellow ship ``me`` could sacrifice
        (docs/computer-opponent.md, *Level 4*)."""
        threat = super()._threat(me, opp, systems)
        yellow = 0
        sacrificed = None  # where the largest yellow (the one sacrificed) is
        for s in systems:
            if s.yellow_max[me] > yellow:
                yellow, sacrificed = s.yellow_max[me], s
        if yellow < 2:
            return threat  # a y1 sacrifice is one move: the base threat counts those
        w = self.weights.ship
        least = self._least_ship
        for i, s in enumerate(systems):
            for c in range(4):
                need = 4 - s.totals[c]
                if c == YELLOW and sacrificed is s:
                    need += 1  # the sacrificed yellow leaves
                if need not in (1, 2):
                    continue
                damage = self._catastrophe_damage(s, c, me, opp, home_of=i)
                # At best the yellow given up is small and so are the pieces moved in:
                # a catastrophe that cannot beat the threat found is not looked into
                # (counting the pieces in reach is the costly part, in busy positions).
                if damage - least - need * w[1] <= threat:
                    continue
                near, far = _pieces_in_reach(me, c, s, sacrificed, systems)
                one = min(need, near)
                two = need - one
                if two > far or one + 2 * two > yellow:
                    continue
                # The yellow given up and the pieces moved in (at least small ones).
                damage -= w[max(one + 2 * two, 1)] + need * w[1]
                if damage > threat:
                    threat = damage
        return threat


def _pieces_in_reach(me: int, c: int, target: _Sys, sacrificed: _Sys | None,
                     systems: list[_Sys]) -> tuple[int, int]:
    """(one jump, two jumps): how many of ``me``'s pieces of colour ``c`` could move to
    ``target``, the yellow given up at ``sacrificed`` not counted."""
    near = far = 0
    for o in systems:
        if o is target:
            continue
        n = o.color_counts[me][c]
        if c == YELLOW and o is sacrificed:
            n -= 1  # it cannot be both sacrificed and moved
        if not n:
            continue
        if not o.size_mask & target.size_mask:
            near += n
        elif _two_jumps(o, target, systems):
            far += n
    return near, far
