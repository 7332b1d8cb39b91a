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
(ships within reach of the enemy home). ``MaterialEvaluator`` is the deliberately simple
baseline used by ``GreedyPlayer``.
"""

from __future__ import annotations

from dataclasses import dataclass

from homeworlds.rules import GameState, SignatureLayout, canonical_key, layout_for

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
                 "ships", "count", "largest", "colors", "value", "by_size", "red_ships",
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
        by_size: list[tuple[int, int, int, int]] = []
        red_ships: list[int] = []
        color_value: list[tuple[float, float, float, float]] = []
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
        self.ships = ships
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
        score = 0.0
        home = homes[me]
        enemy_home = homes[opp]
        # Home defence.
        score += w.home_star * home.n_stars
        n_home = home.count[me]
        if n_home:
            score += w.first_home_ship + w.home_largest * home.largest[me]
        if n_home >= 2:
            score += w.second_home_ship
        home_colors = home.access(me)
        for c in range(4):
            if home_colors >> c & 1:
                score += w.home_color[c]
        score -= w.invader * home.value[opp]
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
        best_build = 0.0
        for c in range(4):
            if builds >> c & 1:
                for k in range(c * 3, c * 3 + 3):
                    if bank[k]:
                        best_build = max(best_build, w.ship[k % 3 + 1])
                        break
        score += best_build * (w.build_to_move if me == to_move else w.build_waiting)
        # Threats this side could carry out on its next turn.
        threat = self._threat(me, opp, systems)
        score += threat * (w.threat_to_move if me == to_move else w.threat_waiting)
        return score

    def _threat(self, me: int, opp: int, systems: list[_Sys]) -> float:
        """The most ``me`` could gain in one turn by capture or by a catastrophe (gain
        counts the enemy's loss plus one's own gain, minus one's own loss). ``systems``
        lists the homes first, by seat."""
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
        # Catastrophes: a colour already at four anywhere, or at three where one of one's
        # own ships could add the fourth (it is there, or one of that colour is next door).
        for i, s in enumerate(systems):
            for c in range(4):
                n = s.totals[c]
                if n < 3:
                    continue
                damage = self._catastrophe_damage(s, c, me, opp, home_of=i)
                if damage <= 0:
                    continue
                if n >= 4:
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
    lost = [h is None or not info.n_stars or not info.count[s]
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
        home_sys = [None if h is None else inner.system(h) for h in homes]
        terminal = terminal_score(homes, seat, home_sys)
        if terminal is not None:
            return terminal
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
                over = [c for c in range(4) if s.totals[c] >= 4]
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
        if home.totals[c] >= 4:
            over |= 1 << c
    if not over:
        return False
    return not (home.star_colors & ~over) or not (home.colors[seat] & ~over)


@dataclass(frozen=True, slots=True)
class PressureWeights:
    """The search player's extra knobs: pressure on a home (pips per unit)."""

    #: An attacker ship in the home at least as large as the largest defender (it captures
    #: there with one red action: a red star, a red ship there, or a red sacrifice).
    inside_big: float = 2.5
    #: ... and the attacker has red at hand for that capture.
    inside_red: float = 2.0
    #: An attacker ship in the home larger than every defender (none can take it back):
    #: plus this per pip of the defenders it threatens, with red at hand.
    inside_larger: float = 3.0
    inside_prey: float = 0.8
    #: Each attacker ship next door (connected) at least as large as the largest
    #: defender (one move from ``inside_big``), up to two.
    adjacent_big: float = 1.2
    #: Two or more of them with red at hand: a two-turn threat the defender must meet now.
    adjacent_pair_red: float = 2.5
    #: A home colour (star or defender) within reach of a catastrophe: per piece the
    #: attacker could add, scaled by what the catastrophe destroys.
    catastrophe: float = 0.6
    catastrophe_to_move: float = 1.6
    #: A home with a single defender, or with defenders all small.
    lone_defender: float = 1.5
    #: Weights on one's own pressure on the enemy home and on the enemy's on one's own.
    #: (1.0 and 1.3 made pressure outweigh material: the search chased threats the
    #: opponent parried while it lost ships; docs/computer-opponent.md, *Tuning*.)
    attack: float = 0.5
    defence: float = 0.6
    #: When one side has at least ``ahead_ratio`` times the other's material (and
    #: ``ahead_margin`` more pips), its attack weight is multiplied by ``conversion``:
    #: far ahead, drive to elimination instead of collecting more material.
    ahead_ratio: float = 1.5
    ahead_margin: float = 5.0
    conversion: float = 3.0
    #: ... and an enemy home down to one star (one catastrophe from elimination) counts
    #: this much for the side far ahead: the catastrophe pressure above counts only what
    #: is still standing, so without it knocking out a star scored below feeding ships
    #: into the home (docs/computer-opponent.md, *Tuning*).
    single_star_home: float = 15.0


#: The search's material weights: a large ship worth four small ones (it captures anything,
#: and a large sacrifice is three actions); measured against the C++ AI, see
#: docs/computer-opponent.md, *Tuning*.
SEARCH_WEIGHTS = Weights(ship=(0.0, 1.0, 2.0, 4.0))


class PressureEvaluator(Evaluator):
    """``Evaluator`` plus what the search player needs beyond the horizon of its search:
    pressure on each home (attackers inside and next door that are big enough to capture
    the defenders, red at hand, colours one move short of a catastrophe, lone or small
    defenders), weighted up for the side far ahead in material (endgame conversion)."""

    def __init__(self, rules, players: int = 2, weights: Weights | None = None,
                 pressure: PressureWeights | None = None):
        super().__init__(rules, players, weights or SEARCH_WEIGHTS)
        self.pressure_weights = pressure or PressureWeights()
        self._scores: dict[tuple, float] = {}
        #: the least a sacrificed yellow can cost (the bound of ``_threat``)
        self._least_ship = min(self.weights.ship[1:])

    def score_key(self, key: tuple, seat: int, to_move: int) -> float:
        # The search meets the same positions again and again (turns that commute reach
        # one position in two orders): scores are kept, for the side to move.
        memo = self._scores
        got = memo.get((key, to_move))
        if got is None:
            got = memo[(key, to_move)] = self._score(key, 0, to_move)
            if len(memo) > 400_000:
                memo.clear()
        return got if seat == 0 else -got

    def _score(self, key: tuple, seat: int, to_move: int) -> float:
        homes, others = key
        system = self.system
        home_info = [None if h is None else system(h) for h in homes]
        terminal = terminal_score(homes, seat, home_info)
        if terminal is not None:
            return terminal
        home_sys: list[_Sys] = [info for info in home_info if info is not None]
        all_sys = home_sys + [system(sig) for sig in others]
        base = self._material_and_position(home_sys, all_sys, seat, to_move)
        pw = self.pressure_weights
        material = [0.0, 0.0]
        for s in all_sys:
            material[0] += s.value[0]
            material[1] += s.value[1]
        # Each side's pressure on the other's home counts for it (attack, more when far
        # ahead) and against the other (defence).
        extra = 0.0
        for att in (0, 1):
            dfn = 1 - att
            weight = pw.attack + pw.defence
            part = 0.0
            if material[att] >= pw.ahead_ratio * material[dfn] + pw.ahead_margin:
                weight += pw.attack * (pw.conversion - 1)
                if home_sys[dfn].n_stars == 1:
                    part += pw.single_star_home
            part += weight * self.pressure(att, dfn, home_sys, all_sys, att == to_move)
            extra += part if att == seat else -part
        return base + extra

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
                near = far = 0
                for o in systems:
                    if o is s:
                        continue
                    n = o.color_counts[me][c]
                    if c == YELLOW and o is sacrificed:
                        n -= 1  # it cannot be both sacrificed and moved
                    if not n:
                        continue
                    if not o.size_mask & s.size_mask:
                        near += n
                    elif _two_jumps(o, s, systems):
                        far += n
                one = min(need, near)
                two = need - one
                if two > far or one + 2 * two > yellow:
                    continue
                # The yellow given up and the pieces moved in (at least small ones).
                damage -= w[max(one + 2 * two, 1)] + need * w[1]
                if damage > threat:
                    threat = damage
        return threat

    @staticmethod
    def _has_red(seat: int, home: _Sys, systems: list[_Sys]) -> bool:
        """Red at hand for ``seat`` at its home: a red star there, or a red ship of its
        own anywhere (to sacrifice)."""
        if home.star_colors >> RED & 1:
            return True
        return any(s.red_ships[seat] for s in systems)

    def pressure(self, att: int, dfn: int, homes: list[_Sys], systems: list[_Sys],
                 att_to_move: bool = False) -> float:
        """How close ``att`` is to taking ``dfn``'s home (0: nowhere near)."""
        pw = self.pressure_weights
        home = homes[dfn]
        d_largest = home.largest[dfn]
        d_count = home.count[dfn]
        red_at_hand = bool(home.star_colors >> RED & 1)
        adjacent_big = 0
        # Attacker ships by colour one jump from the home, and two jumps away.
        near = [0, 0, 0, 0]
        far = [0, 0, 0, 0]
        yellow = 0  # moves one attacker turn can make: the largest yellow to sacrifice
        # Where that yellow is (it cannot also be one of the yellows moved in): 0 at the
        # home, 1 next door, 2 two jumps away, 3 further, None for a yellow star's move.
        yellow_at = None
        home_mask = home.size_mask
        for s in systems:
            if not s.count[att]:
                continue
            if s.red_ships[att]:
                red_at_hand = True
            if s is home:
                where = 0
            elif not s.size_mask & home_mask:
                where = 1
            else:
                where = 2 if _two_jumps(s, home, systems) else 3
            ymax = s.yellow_max[att]
            if ymax > yellow:
                yellow, yellow_at = ymax, where
            elif not yellow and s.star_colors & 2:  # a yellow star: one free move
                yellow = 1
            if where == 0 or where == 3:
                continue
            counts = s.color_counts[att]
            if where == 2:
                far[0] += counts[0]
                far[1] += counts[1]
                far[2] += counts[2]
                far[3] += counts[3]
            else:
                sizes = s.by_size[att]
                for z in range(max(d_largest, 1), 4):
                    adjacent_big += sizes[z]
                near[0] += counts[0]
                near[1] += counts[1]
                near[2] += counts[2]
                near[3] += counts[3]
        score = 0.0
        inside = home.largest[att]
        # An intruder a defender can take back (as large, with red at hand for the
        # defender) is a hanging piece, not pressure.
        if inside and inside <= d_largest and self._has_red(dfn, home, systems):
            inside = 0
        if inside and inside >= d_largest:
            score += pw.inside_big
            if red_at_hand:
                score += pw.inside_red
            if inside > d_largest:
                score += pw.inside_larger
                if red_at_hand:
                    score += pw.inside_prey * home.value[dfn]
        score += pw.adjacent_big * min(adjacent_big, 2)
        if adjacent_big >= 2 and red_at_hand:
            score += pw.adjacent_pair_red
        if d_count == 1 or d_largest < 3:
            if inside or adjacent_big:
                score += pw.lone_defender
        w = self.weights.ship
        builds = 3 if home.count[att] and home.access(att) >> GREEN & 1 else 0
        for c in range(4):
            n = home.totals[c]
            if n < 2:
                continue
            stars = home.color_stars[c]
            defenders = home.color_value[dfn][c]
            if not stars and not defenders:
                continue
            need = 4 - n
            if need <= 0:
                continue
            near_c, far_c = near[c], far[c]
            if c == YELLOW:
                if yellow_at == 0:
                    need += 1
                elif yellow_at == 1:
                    near_c -= 1
                elif yellow_at == 2:
                    far_c -= 1
            # Cheapest way to add ``need`` pieces: builds there (one green action each,
            # of a colour the attacker has there), ships next door (one move), ships
            # further (two moves); a sacrificed yellow gives up to three moves.
            built = min(need, builds) if home.colors[att] >> c & 1 else 0
            left = need - built
            one = min(left, near_c)
            two = min(left - one, far_c)
            if one + two < left or one + 2 * two > yellow:
                continue
            damage = defenders + 2 * w[3] * stars
            if stars and stars == home.n_stars:
                damage += 10.0
            weight = pw.catastrophe_to_move if att_to_move else pw.catastrophe
            score += weight * damage / (1 + one + 2 * two + built)
        return score
