"""The batch order of the scan core (tablefw.scan.Scanner): readers whose multiplexers
follow shared select lines scan one channel together. Loaded only on such a board (a
board whose multiplexers latch their channel runs tablefw.pipeline instead): the board's
heap is small. ``scanner`` below is the Scanner.

- Readers that offer ``scan_steps(channel)`` (the PN5180) scan a channel together, up to
  ``fields_at_once`` of them, their air time overlapping; the zones of a batch that may
  be changing are scanned again at once, up to PRIORITY_REPEATS times.
- Other readers take turns zone by zone, one zone a batch.
"""

from tablefw.scan import PRIORITY_REPEATS, ready_reader


def schedule(scanner, fields_at_once):
    """The round's batches: the (reader index, channel) pairs scanned together, each
    packed into one small integer, index << 8 | channel (a tuple each would cost the
    board's heap about 2 KB). Concurrent readers scan a channel together, at most
    ``fields_at_once`` fields at a time; otherwise one pair a batch."""
    schedule = []
    longest = 0
    for reader in scanner.readers:
        longest = max(longest, len(reader.zones))
    for channel in range(longest):
        batch = []
        for index in range(len(scanner.readers)):
            if channel < len(scanner.readers[index].zones):
                batch.append(index << 8 | channel)
        if scanner.concurrent:
            size = len(batch) if fields_at_once is None else max(1, fields_at_once)
            for start in range(0, len(batch), size):
                schedule.append(tuple(batch[start:start + size]))
        else:
            for entry in batch:
                schedule.append((entry,))
    return schedule


def step(scanner, now):
    """Scan the next batch that is due (or the one being repeated); returns how many ms
    the scanner may idle."""
    batches = scanner._schedule
    for _attempt in range(len(batches) + 1):
        if scanner._pause_until is not None:
            if now < scanner._pause_until:
                return scanner._pause_until - now
            scanner._pause_until = None
        if scanner._priority is not None:
            batch = scanner._priority
            scanner._priority = None
        else:
            batch = batches[scanner._next]
            scanner._repeats = 0
            _advance(scanner, now)
        entries = _due(scanner, batch, now)
        if not entries:
            continue
        if len(entries) == 1 and not scanner.concurrent:
            _scan(scanner, entries[0][0], entries[0][1], now)
        else:
            scan_together(scanner, entries, now)
        if scanner.concurrent and scanner.ready and scanner._repeats < PRIORITY_REPEATS:
            # Repeat at once what may be changing, and only that: the
            # other readers just scanned this channel.
            changing = []
            for index, channel in entries:
                zone = scanner.readers[index].zones[channel]
                if zone not in scanner.slow and scanner.debouncers[zone].unsettled():
                    changing.append(index << 8 | channel)
            if changing:
                scanner._priority = changing
                scanner._repeats += 1
        return 0
    faulted = [scanner._retry_at[i] for i in range(len(scanner.readers)) if scanner.faulted[i]]
    if not faulted:
        return 0  # only slow zones this batch, none due
    # Every reader is waiting out a fault.
    return max(1, min(faulted) - now)


def _due(scanner, batch, now):
    """The (reader, channel) pairs of ``batch`` to scan now: not a reader waiting out a
    fault, not a settled slow zone whose turn has not come."""
    entries = []
    for packed in batch:
        index = packed >> 8
        channel = packed & 0xFF
        if scanner.faulted[index] and now < scanner._retry_at[index]:
            continue
        zone = scanner.readers[index].zones[channel]
        # A slow zone's turn comes every slow_every rounds, staggered by
        # channel so that each round carries an even share of them.
        if zone in scanner.slow and (scanner.rounds + channel) % scanner.slow_every and \
                not scanner.debouncers[zone].unsettled():
            continue
        entries.append((index, channel))
    return entries


def _advance(scanner, now):
    scanner._next += 1
    if scanner._next < len(scanner._schedule):
        return
    scanner._next = 0
    scanner._round_done(now)


def _scan(scanner, index, channel, now):
    reader = scanner.readers[index]
    zone = reader.zones[channel]
    try:
        if scanner.faulted[index]:
            recover = getattr(reader, "recover", None)
            if recover is not None:
                recover()
        reader.select(channel)
        found = reader.inventory(channel)
    except Exception as exc:  # any driver failure is a reader fault
        scanner._fault(index, zone, exc, now)
        return
    scanner._record(index, zone, found, now)


def scan_together(scanner, entries, now):
    """Scan one channel of several readers at once. Readers whose select
    lines are shared but whose channel maps to another switch position
    cannot be on air together: they go in a later group."""
    while entries:
        group = []
        later = []
        routes: dict[object, int] = {}
        for entry in entries:
            switch = scanner._switches[entry[0]]
            if switch is not None:
                position = switch[1][entry[1]] if switch[1] is not None else entry[1]
                if routes.get(switch[0], position) != position:
                    later.append(entry)
                    continue
                routes[switch[0]] = position
            group.append(entry)
        _scan_group(scanner, group, now)
        entries = later
        now = scanner.clock()


def _scan_group(scanner, entries, now):
    """Recover the faulted readers first (a reset pulse may reach the
    others), then step every reader's scan generator in turn until all
    are done."""
    ready = []
    for index, channel in entries:
        reader = scanner.readers[index]
        try:
            ready_reader(reader, scanner.faulted[index])
            ready.append((index, channel))
        except Exception as exc:  # any driver failure is a reader fault
            scanner._fault(index, reader.zones[channel], exc, now)
    running = []
    for index, channel in ready:
        reader = scanner.readers[index]
        zone = reader.zones[channel]
        try:
            if getattr(reader, "scan_steps", None) is None:
                reader.select(channel)
                scanner._record(index, zone, reader.inventory(channel), now)
                continue
            several = scanner.debouncers[zone].several()
            running.append((index, zone, reader.scan_steps(channel, several)))
        except Exception as exc:  # any driver failure is a reader fault
            scanner._fault(index, zone, exc, now)
    # Each pass steps every scan once. No list is built per pass: the passes spin
    # while the chips are on air, and garbage made there costs a collection later.
    while running:
        position = 0
        while position < len(running):
            item = running[position]
            try:
                next(item[2])
            except StopIteration:
                del running[position]
                scanner._record(item[0], item[1], scanner.readers[item[0]].found, scanner.clock())
                continue
            except Exception as exc:  # any driver failure is a reader fault
                del running[position]
                scanner._fault(item[0], item[1], exc, scanner.clock())
                continue
            position += 1
