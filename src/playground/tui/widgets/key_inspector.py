"""The key inspector: every key, its type, a live TTL countdown and a value preview.

Reads go through `playground.engine.key_reader.Inspector` (its own connection, no writes, bounded
work). Refreshes run in an exclusive worker, so typing never waits for them and a newer
refresh replaces an older one.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Input, Static

from playground.engine.key_reader import Inspector, KeyInfo, Snapshot
from playground.i18n import N_, tr, trn
from playground.tui.widgets.pane_state import set_line
from playground.tui.widgets.key_table import Cells, KeyTable
from playground.tui.plain_text import plain
from playground.tui.focus import focus_now

TYPE_STYLE = {"string": "green", "list": "cyan", "set": "magenta", "zset": "yellow",
              "hash": "blue", "stream": "red"}


def _watch_badge(watchers: list[tuple[str, bool]]) -> Text:
    text = Text()
    for client, dirty in watchers:
        if text:
            text.append(" ")
        text.append(tr("{client} dirty", client=client) if dirty else client,
                    style="bold white on red" if dirty else "magenta")
    return text


def summary_line(snap: Snapshot, pattern: str) -> str:
    """Exactly what the table holds, e.g. "3 keys", "100 of 255 keys shown (the first by
    name)", "100 of 200,001 keys shown (a sample: SCAN)", "2 keys matching user:* (3 in
    db)", "0 keys matching key:7 so far (scanning… 40% of 200,001 keys)"."""
    shown, total = len(snap.keys), snap.total
    if pattern == "*":
        if snap.complete and shown >= total:
            return trn("{n:,} key", "{n:,} keys", total)
        if snap.complete:
            return tr("{shown:,} of {total:,} keys shown (the first by name)", shown=shown, total=total)
        return tr("{shown:,} of {total:,} keys shown (a sample: SCAN)", shown=shown, total=total)
    if snap.progress is not None:
        return trn("{n:,} key matching {pattern} so far (scanning… {percent}% of {total:,} keys)",
                   "{n:,} keys matching {pattern} so far (scanning… {percent}% of {total:,} keys)", shown,
                   pattern=pattern, percent=int(snap.progress * 100), total=total)
    if not snap.complete:
        return trn("{n:,} key matching {pattern} shown (a sample: SCAN; {total:,} in db)",
                   "{n:,} keys matching {pattern} shown (a sample: SCAN; {total:,} in db)", shown,
                   pattern=pattern, total=total)
    if snap.more > 0:
        return tr("{shown:,} of {matching:,} keys matching {pattern} shown (the first by name; {total:,} in db)",
                  shown=shown, matching=shown + snap.more, pattern=pattern, total=total)
    return trn("{n:,} key matching {pattern} ({total:,} in db)", "{n:,} keys matching {pattern} ({total:,} in db)",
               shown, pattern=pattern, total=total)


def format_ttl(info: KeyInfo, now: float | None = None) -> str:
    """A key's TTL left (`now`: time.monotonic(), default now), or — for none."""
    left = info.ttl_left(now)
    return "—" if left is None else f"{left:.1f}s"


class KeyInspector(Vertical):
    """All keys of the server, refreshed after every command and on a timer."""

    DEFAULT_CSS = """
    KeyInspector { border: round $secondary; height: 1fr; }
    KeyInspector:focus-within { border: round $accent; }
    KeyInspector > #filter { border: none; height: 1; padding: 0 1; }
    KeyInspector > #summary { height: 1; padding: 0 1; color: $text-muted; }
    KeyInspector > KeyTable { height: 1fr; }
    """

    BINDINGS = [Binding("slash", "focus_filter", "Filter keys")]

    FLASH_SECONDS = 2.0
    """How long a changed key stays highlighted."""
    REFRESH_DELAY = 0.1
    """Least seconds between two reads of the keys (a burst of commands folds into one)."""

    pattern: reactive[str] = reactive("*")
    """SCAN MATCH pattern for the keys shown."""
    snapshot: reactive[Snapshot | None] = reactive(None, always_update=True, repaint=False)
    """The last keys read."""

    def __init__(self, playground, **kwargs) -> None:
        super().__init__(id="inspector", **kwargs)
        self.playground = playground  # who wrote each key (playground.writes)
        self.border_title = tr("Keys")
        self.inspector: Inspector | None = None
        self._changed_at: dict[bytes, float] = {}
        self._changed_after: dict[bytes, int] = {}  # key -> the writes noted (WriteTracker.noted) when
        # the read before the one that saw it change began: its writer is known once a later write is noted
        self._reads: tuple[tuple[int, str], tuple[int, str]] = ((0, ""), (0, ""))  # (noted, pattern) as
        # the last two reads began
        self._wanted = False
        self._loading = False
        self._last_read = -1e9  # time.monotonic() of the last read of the keys
        self.watchers: dict[bytes, list[tuple[str, bool]]] = {}  # key -> [(client, dirty)]
        self._pinned: list[bytes] | None = None  # set_pinned's keys; None: the writers the app tracks
        self.held_ttl: Callable[[bytes, float], tuple[int, float] | None] = lambda key, read_at: None
        """(key, when its TTL was read) -> the TTL (ms) to show and as of when, or None: the
        read is right (a lesson's clock: scenario/lesson_clock.py shown_ttl). A TTL a lesson
        holds while it waits for the class is shown held, not counting down; once the hold
        ends, it counts down from the TTL it was held at, never from a read made meanwhile."""

    def compose(self) -> ComposeResult:
        yield Input(placeholder=tr("filter: a SCAN pattern, e.g. user:*  (Enter applies)"), id="filter")
        yield Static(id="summary")
        yield KeyTable(N_("key"), N_("type"), "TTL", N_("value"), N_("changed"), N_("watched"), id="keys")

    def on_mount(self) -> None:
        self.set_interval(1.0, self._timed_refresh)
        self._ttl_ticker = self.set_interval(0.25, self._tick_ttls, pause=True)  # while a key shown has a TTL

    def _timed_refresh(self) -> None:
        """Once a second, while its screen is shown (a mode's screen is kept for later when
        another mode shows: tui/mode_screens.py; it reads the keys again when it comes back)."""
        if self.screen in self.app.screen_stack:
            self.refresh_keys()

    def attach(self, inspector: Inspector) -> None:
        """Read the keys through `inspector` (a new one after every server start). The same
        one again is not read again: at start both the app and the mode's screen follow the
        server, and that second read, 0.1 s after the first, held up the first quiet frame."""
        if inspector is self.inspector:
            return
        self.inspector = inspector
        self.refresh_keys()

    def set_pinned(self, keys) -> None:
        """Keys read on every refresh whatever the SCAN reaches (most important first; the
        inspector reads at most `cap` of them). Until this is called, the keys in
        `app.playground.writes.last_writer` (those the clients wrote, the newest first) are used."""
        self._pinned = list(keys)
        self.refresh_keys()

    def pinned_keys(self) -> list[bytes]:
        if self._pinned is not None:
            return self._pinned
        writes = self.playground.writes
        return list(reversed(writes.last_writer)) if writes is not None else []

    def refresh_keys(self) -> None:
        """Ask for a refresh: now if the keys were not read in the last REFRESH_DELAY,
        else at its end. Requests meanwhile, or while a read runs, fold into one: a burst
        of commands costs one read per REFRESH_DELAY, and typing never waits."""
        self._wanted = True
        if self.inspector is not None and not self._loading:
            self._loading = True
            self._load()

    @work(group="inspector", exit_on_error=False)
    async def _load(self) -> None:
        try:
            while self._wanted:
                wait = self._last_read + self.REFRESH_DELAY - time.monotonic()
                if wait > 0:  # read in the last REFRESH_DELAY: read again, but not sooner
                    await asyncio.sleep(wait)
                self._wanted = False
                self._last_read = time.monotonic()
                pattern = self.pattern
                inspector = self.inspector
                if inspector is None:  # (detached: nothing to read)
                    break
                writes = self.playground.writes
                began = (writes.noted if writes is not None else 0, pattern)
                try:
                    snap = await inspector.snapshot(pattern.encode() or b"*", self.pinned_keys())
                except Exception as exc:  # server busy or gone: keep the last picture
                    set_line(self.query_one("#summary", Static),
                             Text(tr("(keys not readable now: {error})", error=exc)))
                    return
                if pattern == self.pattern:  # stale-result guard: the filter changed meanwhile
                    self._reads = (self._reads[1], began)
                    self.snapshot = snap
                    if snap.read_again:  # a filter's first pass over a big keyspace: go on
                        self._wanted = True
        finally:
            self._loading = False

    def set_watchers(self, watchers: dict[bytes, list[tuple[str, bool]]]) -> None:
        """Which client WATCHes which key, and whether the server says it is dirty."""
        if watchers != self.watchers:
            self.watchers = watchers
            self._render_table()

    def watch_snapshot(self, old: Snapshot | None, new: Snapshot | None) -> None:
        if new is None:
            return
        before = {k.name: (k.type, k.preview, k.expires) for k in (old.keys if old else [])}
        now = time.monotonic()
        changed = [k.name for k in new.keys if before and before.get(k.name) != (k.type, k.preview, k.expires)]
        (noted, pattern), (_, now_pattern) = self._reads
        for name in changed:
            self._changed_at[name] = now
            if pattern == now_pattern:   # (a key the filter brings into view did not change: its writer holds)
                self._changed_after[name] = noted
        self._render_table()
        if changed:  # the key that changed last stays in view (sorted by name, it may be below)
            writers = self.pinned_keys()  # the newest write first
            last = min(changed, key=lambda name: writers.index(name) if name in writers else len(writers))
            table = self.query_one(KeyTable)
            table.show_row([k.name for k in new.keys].index(last))

    def _render_table(self) -> None:
        """Show the snapshot; the table draws again only the rows that differ (most
        refreshes change nothing, and redrawing the table costs typing time)."""
        new = self.snapshot
        if new is None:
            return
        if any(k.expires for k in new.keys):
            self._ttl_ticker.resume()
        else:
            self._ttl_ticker.pause()
        now = time.monotonic()
        rows: list[tuple[str, Cells]] = []
        for k in new.keys:
            writes = self.playground.writes
            who = writes.last_writer.get(k.name, "") if writes else ""
            if writes is not None and who and writes.noted_at.get(k.name, 0) <= self._changed_after.get(k.name, -1):
                who = ""   # (it changed since the write noted last: whose write that is is not known yet)
            recent = now - self._changed_at.get(k.name, -1e9) < self.FLASH_SECONDS
            rows.append((k.name.decode("latin-1"), (
                plain(k.name.decode("utf-8", "replace"), style="bold reverse" if recent else ""),
                Text(k.type + _node_hint(self.inspector, k.name), style=TYPE_STYLE.get(k.type, "")),
                Text(self._ttl_text(k, now)),
                plain(k.preview),
                Text(tr("by {client}", client=who) if who else "", style="bold" if recent else "dim"),
                _watch_badge(self.watchers.get(k.name, [])),
            )))
        self.query_one(KeyTable).set_rows(rows)
        set_line(self.query_one("#summary", Static), Text(summary_line(new, self.pattern)))

    def on_key_table_selected(self, event: KeyTable.Selected) -> None:
        self._show_detail(event.key.encode("latin-1"))

    @work(exclusive=True, group="detail", exit_on_error=False)
    async def _show_detail(self, key: bytes) -> None:
        if self.inspector is None:
            return
        try:
            detail = await self.inspector.detail(key)
        except Exception as exc:
            self.notify(tr("cannot read {key!r}: {error}", key=key, error=exc), severity="error")
            return
        from playground.tui.dialogs.info_screens import InfoScreen, key_detail_text

        self.app.push_screen(InfoScreen(tr("key {name}", name=detail["key"]), lambda: key_detail_text(detail)))

    def _tick_ttls(self) -> None:
        snap = self.snapshot
        if snap is None or self.screen not in self.app.screen_stack:  # (a mode's screen kept for later)
            return
        table = self.query_one(KeyTable)
        now = time.monotonic()
        for row, k in enumerate(snap.keys):
            if k.expires and row < table.row_count:
                table.update_cell(row, 2, self._ttl_text(k, now))

    def _ttl_text(self, k: KeyInfo, now: float) -> str:
        shown = self.held_ttl(k.name, k.read_at) if k.expires else None
        if shown is not None:  # as the lesson holds it (as of now: it stands still), or left it
            k = dataclasses.replace(k, pttl=shown[0], read_at=shown[1])
        return format_ttl(k, now)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.pattern = event.value.strip() or "*"
        self.remove_class("-filtering")
        self.refresh_keys()
        focus_now(self.query_one(KeyTable))

    def on_input_blurred(self, event: Input.Blurred) -> None:
        if not event.value.strip():  # left empty: hidden again where it shows only while used
            self.remove_class("-filtering")

    def action_focus_filter(self) -> None:
        self.add_class("-filtering")  # on short screens the filter shows only while used
        focus_now(self.query_one("#filter", Input))


def _node_hint(inspector, name: bytes) -> str:
    """On a cluster: " @node-3", the node that holds the key (engine/cluster_reader.py)."""
    short = getattr(inspector, "node_of", None)
    return f" @{short(name)}" if short is not None else ""
