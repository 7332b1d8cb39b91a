"""A compact, search-oriented view of a position (internal to the search modules).

Successor generation and win-in-one search visit hundreds of thousands of
intermediate positions, so they do not use ``GameState``. Here a star system
is one integer, its *signature*: the count of every piece kind among its
stars and among each seat's ships, packed in fixed-width bit fields::

    bits [0, 12w)             stars, kind k at bit k*w
    bits [12w*(s+1), ...)     seat s's ships, kind k at bit 12w*(s+1) + k*w

with ``w`` = 2 bits while at most three copies of a piece exist (two players)
and 3 bits beyond. A system's identity for the search is a small integer
*uid*; its home marker is kept beside the signature. Everything a search asks
about a system (its star sizes, a seat's ships, overpopulated colours ...) is
computed once per signature and cached (``SignatureLayout.info``).

Positions compare *without names*: the canonical key of a position is the
homes' signatures (seat order) and the sorted signatures of the other
systems (``canonical_key``). Inside one search the same key is kept as an
exact integer: the product of one prime per (home marker, signature), which
is updated in O(1) per change (divide the old factor out, multiply the new
one in) and is unique by unique factorisation.
"""

from __future__ import annotations

from homeworlds.rules.pieces import OVERPOPULATION
from homeworlds.rules.state import GameState

# ---- primes for the exact product keys ------------------------------------


def _primes_from(start: int, count: int) -> list[int]:
    out: list[int] = []
    n = max(start, 2)
    while len(out) < count:
        if n < 4 or all(n % p for p in range(2, int(n ** 0.5) + 1)):
            out.append(n)
        n += 1
    return out


def _sieve(limit: int) -> list[int]:
    flags = bytearray([1]) * (limit + 1)
    flags[0:2] = b"\x00\x00"
    for i in range(2, int(limit ** 0.5) + 1):
        if flags[i]:
            flags[i * i::i] = bytearray(len(flags[i * i::i]))
    return [i for i in range(limit + 1) if flags[i]]


class PrimeTable(dict):
    """Maps a tag (signature with home marker) to its own prime, assigned on first use."""

    _all: list[int] = []

    def __missing__(self, tag: int) -> int:
        primes = PrimeTable._all
        n = len(self)
        if n >= len(primes):
            if not primes:
                primes.extend(_sieve(1 << 17))
            else:
                primes.extend(_primes_from(primes[-1] + 1, 4096))
        p = primes[n]
        self[tag] = p
        return p


# ---- per-signature analysis ----------------------------------------------


class SigInfo:
    """What the search needs to know about one system signature (immutable by convention)."""

    __slots__ = ("stars", "star_mask", "size_mask", "star_colors", "kinds", "count", "largest",
                 "colors", "overpop", "ships", "color_totals", "pips")

    stars: tuple[int, ...]
    #: Bit k set when a star of kind k is present (bank kinds the system gives back when it fades).
    star_mask: int
    #: Bit (size-1) set for every star size present: two systems connect when these don't meet.
    size_mask: int
    #: Bit c set for every star colour present.
    star_colors: int
    #: Per seat: the piece kinds of its ships here, ascending.
    kinds: tuple[tuple[int, ...], ...]
    #: Per seat: how many ships.
    count: tuple[int, ...]
    #: Per seat: its largest ship's size (0 if none).
    largest: tuple[int, ...]
    #: Per seat: bit c set for every colour among its ships.
    colors: tuple[int, ...]
    #: Colours with four or more pieces here.
    overpop: tuple[int, ...]
    #: Ships of all seats.
    ships: int
    color_totals: tuple[int, ...]
    #: Per seat: the sizes of its ships here, added up.
    pips: tuple[int, ...]


class SignatureLayout:
    """Bit layout of signatures for a number of seats and piece copies, and the info cache."""

    def __init__(self, seats: int, copies: int):
        self.seats = seats
        self.width = 2 if copies <= 3 else 3
        w = self.width
        self.field = (1 << w) - 1
        self.star_weight = tuple(1 << (k * w) for k in range(12))
        self.ship_weight = tuple(tuple(1 << (12 * w * (s + 1) + k * w) for k in range(12))
                                 for s in range(seats))
        self._cache: dict[int, SigInfo] = {}

    #: Signatures analysed before the cache starts over (about 1 kB each: the host
    #: keeps its memory bounded on a Raspberry Pi; a search refills what it uses).
    CACHE_LIMIT = 16384

    def info(self, sig: int) -> SigInfo:
        cache = self._cache
        got = cache.get(sig)
        if got is None:
            if len(cache) >= self.CACHE_LIMIT:
                cache.clear()
            got = self._analyse(sig)
            cache[sig] = got
        return got

    def _analyse(self, sig: int) -> SigInfo:
        w, f = self.width, self.field
        i = SigInfo()
        stars = []
        for k in range(12):
            stars.extend([k] * ((sig >> (k * w)) & f))
        i.stars = tuple(stars)
        i.star_mask = sum(1 << k for k in set(stars))
        i.size_mask = 0
        i.star_colors = 0
        totals = [0, 0, 0, 0]
        for k in stars:
            i.size_mask |= 1 << (k % 3)
            i.star_colors |= 1 << (k // 3)
            totals[k // 3] += 1
        kinds, count, largest, colors, pips = [], [], [], [], []
        for s in range(self.seats):
            base = 12 * w * (s + 1)
            ks, n, big, cm, size = [], 0, 0, 0, 0
            for k in range(12):
                c = (sig >> (base + k * w)) & f
                if c:
                    ks.append(k)
                    n += c
                    size += c * (k % 3 + 1)
                    big = max(big, k % 3 + 1)
                    cm |= 1 << (k // 3)
                    totals[k // 3] += c
            kinds.append(tuple(ks))
            count.append(n)
            largest.append(big)
            colors.append(cm)
            pips.append(size)
        i.kinds = tuple(kinds)
        i.count = tuple(count)
        i.largest = tuple(largest)
        i.colors = tuple(colors)
        i.ships = sum(count)
        i.color_totals = tuple(totals)
        i.pips = tuple(pips)
        i.overpop = tuple(c for c in range(4) if totals[c] >= OVERPOPULATION)
        return i

    def ship_count(self, sig: int, seat: int, kind: int) -> int:
        return (sig >> (12 * self.width * (seat + 1) + kind * self.width)) & self.field

    def signature(self, stars, fleets) -> int:
        sig = 0
        for k in stars:
            sig += self.star_weight[k]
        for s, fleet in enumerate(fleets):
            for k, n in enumerate(fleet):
                sig += n * self.ship_weight[s][k]
        return sig

    def mirrored(self, sig: int) -> int:
        """Two seats: the signature with seat 0's and seat 1's ships exchanged."""
        span = 12 * self.width
        mask = (1 << span) - 1
        return (sig & mask) | ((sig >> span) & mask) << 2 * span | (sig >> 2 * span) << span

    def mirrored_key(self, key: tuple) -> tuple:
        """Two seats: the key of the position with every ship and home exchanged between
        the seats (Brain Transference)."""
        homes, others = key
        mirrored = self.mirrored
        return (tuple(None if sig is None else mirrored(sig) for sig in reversed(homes)),
                tuple(sorted(mirrored(sig) for sig in others)))

    def without_color(self, sig: int, color: int) -> int:
        """The signature after every piece of ``color`` left (a catastrophe's removal)."""
        w = self.width
        f = self.field
        for k in range(color * 3, color * 3 + 3):
            sig &= ~(f << (k * w))
            for s in range(self.seats):
                sig &= ~(f << (12 * w * (s + 1) + k * w))
        return sig


_LAYOUTS: dict[tuple[int, int], SignatureLayout] = {}


def layout_for(seats: int, copies: int) -> SignatureLayout:
    key = (seats, 2 if copies <= 3 else 3)
    got = _LAYOUTS.get(key)
    if got is None:
        got = _LAYOUTS[key] = SignatureLayout(seats, copies)
    return got


def home_tag(sig: int, home: int) -> int:
    """The prime-table tag of a system: its signature and its home marker (-1: none)."""
    return sig * 8 + home + 1


# ---- conversion from GameState ---------------------------------------------


class EncodedPosition:
    """A GameState as the successor search encodes it: parallel lists of the systems'
    signatures, home markers and names, plus the bank."""

    __slots__ = ("layout", "sigs", "homes", "names", "bank", "seats", "eliminated")

    def __init__(self, state: GameState):
        copies = state.rules.bank_copies(state.players)
        self.layout = layout_for(state.players, copies)
        self.seats = state.players
        self.sigs = [self.layout.signature(s.stars, s.ships) for s in state.systems]
        self.homes = [-1 if s.home_of is None else s.home_of for s in state.systems]
        self.names = [s.name for s in state.systems]
        self.bank = list(state.bank)
        self.eliminated = list(state.eliminated)


def canonical_key(state: GameState) -> tuple:
    """The name-free identity of a position: ``(home signatures by seat, other signatures)``.

    Two positions have the same key exactly when they differ at most in the names
    of systems (and in the order systems are listed): each seat's home is compared
    as that seat's home, the other systems as a multiset. A seat without a home
    has ``None``. Whose turn it is and the game's result are not part of it.
    """
    snap = EncodedPosition(state)
    return key_of(snap.sigs, snap.homes, snap.seats)


def key_of(sigs, homes, seats: int) -> tuple:
    home_sigs: list[int | None] = [None] * seats
    others = []
    for sig, home in zip(sigs, homes, strict=True):
        if home >= 0:
            home_sigs[home] = sig
        else:
            others.append(sig)
    others.sort()
    return (tuple(home_sigs), tuple(others))


def state_key(key: tuple, layout: SignatureLayout) -> tuple:
    """The key of the ``GameState`` a successor key describes once the turn is over.

    A successor key keeps a home marked even when its seat has just lost it (no ship
    of its own there); ``GameState`` then unmarks that home and removes it if it is
    empty. This applies the same to a key, so that it compares with
    ``canonical_key(state_after_the_turn)``.
    """
    homes, rest = key
    new_homes = list(homes)
    extra = []
    for seat, sig in enumerate(homes):
        if sig is None:
            continue
        i = layout.info(sig)
        if not i.count[seat]:
            new_homes[seat] = None
            if i.ships and i.stars:
                extra.append(sig)
    if not extra and new_homes == list(homes):
        return key
    return (tuple(new_homes), tuple(sorted(rest + tuple(extra))))
