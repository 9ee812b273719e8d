"""The class protocol (see classroom/__init__.py for the keys and messages): what the
teacher's and the learners' apps read and write in the class's Redis."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from collections.abc import Awaitable, Callable
from typing import AsyncIterator

from playground.engine.catalogue import SUBSCRIBES
from playground.resp.address import Address
from playground.resp.connection import TypedConnection
from playground.resp.side_connection import SideConnection
from playground.resp.replies import Array, Bulk, Err

VERSION = 1
FOLLOW, OWN = "follow", "own"
CLASS_TTL = 12 * 3600  # seconds a class's keys outlive their last write
MAX_LESSON_BYTES = 512 * 1024  # a lesson's TOML text the class carries, at most
MAX_NAME = 40  # characters of a learner's name (a longer one is refused where it is typed; docs/serve.md)
ENV_URL = "REDIS_PLAYGROUND_CLASS_URL"     # serve -> app: the class's Redis (with its password)
ENV_ROLE = "REDIS_PLAYGROUND_CLASS_ROLE"   # "teacher" or "learner"
ENV_NAME = "REDIS_PLAYGROUND_CLASS_NAME"   # the class's name (the keys' prefix)
RELEASED_EXIT = 75  # a learner's app ends with this code when the teacher freed its place (serve tells the tab)
ENDED_EXIT = 76  # a class's app ends with this code when the teacher ended the class (serve tells the tab)


def secret_digest(secret: str) -> str:
    """The SHA-256 hex digest of a class's secret (what the class's Redis keeps instead of the secret).

    Args:
        secret: the teacher's secret for the class.
    """
    return hashlib.sha256(secret.encode()).hexdigest()


class ClassError(ConnectionError):
    """The class's Redis refused or is gone: one line to show."""


def encode(kind: str, **fields) -> bytes:
    """One message of this protocol as compact JSON bytes, with the protocol's version.

    Args:
        kind: the message's type (e.g. "mode").
        **fields: the message's other fields.
    """
    return json.dumps({"v": VERSION, "type": kind, **fields}, sort_keys=True, separators=(",", ":")).encode()


def decode(data: bytes) -> dict | None:
    """A message of this protocol, or None (anything else on the channel is ignored)."""
    try:
        message = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(message, dict) or message.get("v") != VERSION or not isinstance(message.get("type"), str):
        return None
    return message


@dataclass
class LessonState:
    """What the teacher leads: the lesson (and its run: `epoch`), the mode, the teacher's
    step; `source`, the lesson's TOML text, only from ClassLink.lesson()."""

    lesson: str = ""
    challenge: bool = False
    mode: str = FOLLOW
    step: int = 0
    epoch: int = 0
    source: str = field(default="", repr=False)


@dataclass
class Learner:
    """One learner's place in the lesson, as the overview lists it."""

    id: str
    name: str
    epoch: int = 0
    lesson: str = ""
    step: int = 0
    total: int = 0
    right: int = 0
    answered: int = 0
    won: bool | None = None
    away: float = 0.0  # when the learner's tab closed (seconds since the epoch, the learner's serve's clock); 0: open

    def to_json(self) -> bytes:
        fields = asdict(self)
        del fields["id"]
        return json.dumps(fields, sort_keys=True, ensure_ascii=False).encode()

    @classmethod
    def from_json(cls, learner_id: str, data: bytes) -> "Learner | None":
        try:
            fields = json.loads(data)
            return cls(id=learner_id, **{k: v for k, v in fields.items() if k in cls.__dataclass_fields__})
        except (ValueError, TypeError):
            return None


def _text(value) -> str:
    return bytes(value).decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) else str(value)


def _pairs(reply) -> dict[str, bytes]:
    if isinstance(reply, Err):
        raise ClassError(reply.message.decode(errors="replace"))
    items = list(reply or [])
    return {_text(items[i]): bytes(items[i + 1]) for i in range(0, len(items) - 1, 2)}


@dataclass
class ClassLink:
    """One app's (or serve's) link to the class: commands on one connection, the
    channel on another (`listen`)."""

    address: Address
    name: str = "class"
    conn: SideConnection = field(init=False)

    def __post_init__(self) -> None:
        self.prefix = f"redis-playground:class:{self.name}"
        self.conn = SideConnection(self.address, "playground-class")
        self._listener: TypedConnection | None = None

    @property
    def channel(self) -> bytes:
        """The teacher's lesson, step, mode and releases: every app of the class hears them."""
        return f"{self.prefix}:events".encode()

    @property
    def teachers_channel(self) -> bytes:
        """Learners' progress and answers: only teachers listen (30 learners each hearing the
        29 others' progress after every step would be 900 messages for nobody)."""
        return f"{self.prefix}:to-teachers".encode()

    def _key(self, *parts) -> bytes:
        return ":".join([self.prefix, *map(str, parts)]).encode()

    async def _run(self, commands: list[list[bytes]]) -> list:
        try:
            replies = await self.conn.run(commands)
        except OSError as exc:
            raise ClassError(str(exc)) from None
        for reply in replies:
            if isinstance(reply, Err):
                raise ClassError(reply.message.decode(errors="replace"))
        return replies

    async def _write(self, key: bytes, command: list[bytes], message: bytes, to_teachers: bool = False) -> list:
        channel = self.teachers_channel if to_teachers else self.channel
        return await self._run([command, [b"EXPIRE", key, b"%d" % CLASS_TTL], [b"PUBLISH", channel, message]])

    async def close(self) -> None:
        await self.conn.close()
        listener, self._listener = self._listener, None
        if listener is not None:
            await listener.close()

    # -- the teacher ---------------------------------------------------------------

    _STATE = (b"lesson", b"challenge", b"mode", b"step", b"epoch")

    async def state(self) -> LessonState:
        """The class now (without the lesson's text: every step reads this)."""
        return self._state(self._STATE, (await self._run([[b"HMGET", self._key("state"), *self._STATE]]))[0])

    async def lesson(self) -> LessonState:
        """The class now, with the lesson's TOML text: one read, so the text is this run's."""
        names = (*self._STATE, b"source")
        return self._state(names, (await self._run([[b"HMGET", self._key("state"), *names]]))[0])

    @staticmethod
    def _state(names, values) -> LessonState:
        # no reply at all means no fields; HMGET otherwise answers one value per name
        fields = {name.decode(): bytes(value) for name, value in zip(names, values or [], strict=False)
                  if isinstance(value, (bytes, bytearray))}
        state = LessonState()
        state.lesson = _text(fields.get("lesson", b""))
        state.challenge = fields.get("challenge") == b"1"
        state.mode = OWN if fields.get("mode") == OWN.encode() else FOLLOW
        state.source = _text(fields.get("source", b""))
        for name in ("step", "epoch"):
            try:
                setattr(state, name, int(fields.get(name, b"0")))
            except ValueError:
                pass
        return state

    async def open_lesson(self, lesson: str, challenge: bool, source: str = "",
                          questions: dict[int, tuple[dict[str, str], int]] | None = None) -> int:
        """The teacher opened (or restarted) `lesson`, whose TOML text is `source`: a new
        run (epoch) of it, the class at step 0. Returns the epoch. The epoch is counted
        apart (`runs`) and set with the lesson in one HSET: a reader never sees a new
        epoch with an old lesson. `questions` (step index -> the question in every language
        and its right choice) go to the run's record (P:runs), for the class's answers as CSV."""
        key = self._key("state")
        if len(source.encode()) > MAX_LESSON_BYTES:
            raise ValueError(source)
        epoch = int((await self._run([[b"HINCRBY", key, b"runs", b"1"]]))[0])
        await self._write(key, [b"HSET", key, b"epoch", b"%d" % epoch, b"lesson", lesson.encode(),
                                b"challenge", b"1" if challenge else b"0", b"step", b"0", b"source", source.encode()],
                          encode("lesson", epoch=epoch, lesson=lesson, challenge=challenge))
        if lesson:
            record = json.dumps({"lesson": lesson, "challenge": challenge,
                                 "questions": {str(i): list(q) for i, q in (questions or {}).items()}},
                                ensure_ascii=False).encode()
            runs = self._key("runs")
            await self._run([[b"HSET", runs, b"%d" % epoch, record], [b"EXPIRE", runs, b"%d" % CLASS_TTL]])
        return epoch

    async def release(self, learner_id: str) -> None:
        """The teacher frees a learner's place: the learner's app ends (its session, and so its
        --max-tabs place, with it) and the overview no longer lists them."""
        key = self._key("learners")
        await self._write(key, [b"HDEL", key, learner_id.encode()], encode("release", id=learner_id))

    async def end_class(self) -> None:
        """The teacher ends the class: its lesson closes (a run with none, as a close is: a tab
        that joins later waits for a lesson) and every learner's app ends (its tab says the
        class is over)."""
        key = self._key("state")
        epoch = int((await self._run([[b"HINCRBY", key, b"runs", b"1"]]))[0])
        await self._write(key, [b"HSET", key, b"epoch", b"%d" % epoch, b"lesson", b"", b"challenge", b"0",
                                b"step", b"0", b"source", b""], encode("end", epoch=epoch))

    async def new_period(self) -> None:
        """serve --new-period: every key of the class goes (the lesson, the learners, the
        answers, the teachers' secrets: an older teacher's URL no longer leads it); the apps
        still on the channel are told the lesson closed."""
        cursor, keys = b"0", []
        while True:
            cursor, found = (await self._run([[b"SCAN", cursor, b"MATCH", self._key("*"), b"COUNT", b"1000"]]))[0]
            keys += [bytes(key) for key in found]
            cursor = bytes(cursor)
            if cursor == b"0":
                break
        for start in range(0, len(keys), 500):
            await self._run([[b"UNLINK", *keys[start:start + 500]]])
        await self._run([[b"PUBLISH", self.channel, encode("lesson", epoch=0, lesson="", challenge=False)]])

    async def records(self) -> tuple[dict[int, dict], dict[tuple[int, int], dict[str, int]], dict[str, str]]:
        """The class's answers for the CSV: each run's record (epoch -> lesson, questions),
        each prediction's answers ((epoch, step) -> learner id -> choice), each learner's
        name (also of those who left)."""
        runs: dict[int, dict] = {}
        for run_key, data in _pairs((await self._run([[b"HGETALL", self._key("runs")]]))[0]).items():
            try:
                runs[int(run_key)] = json.loads(data)
            except ValueError:
                continue
        answers: dict[tuple[int, int], dict[str, int]] = {}
        cursor = b"0"
        while True:
            cursor, found = (await self._run([[b"SCAN", cursor, b"MATCH", self._key("answers", "*"),
                                               b"COUNT", b"1000"]]))[0]
            for key in found:
                try:
                    epoch, step = (int(part) for part in bytes(key).decode().rsplit(":", 2)[1:])
                except ValueError:
                    continue
                fields = _pairs((await self._run([[b"HGETALL", bytes(key)]]))[0])
                answers[epoch, step] = {who: int(value) for who, value in fields.items() if value.isdigit()}
            cursor = bytes(cursor)
            if cursor == b"0":
                break
        names = _pairs((await self._run([[b"HGETALL", self._key("names")]]))[0])
        return runs, answers, {who: _text(name) for who, name in names.items()}

    async def set_step(self, epoch: int, step: int) -> None:
        key = self._key("state")
        await self._write(key, [b"HSET", key, b"step", b"%d" % step], encode("step", epoch=epoch, step=step))

    async def set_mode(self, mode: str) -> None:
        if mode not in (FOLLOW, OWN):
            raise ValueError(mode)
        key = self._key("state")
        await self._write(key, [b"HSET", key, b"mode", mode.encode()], encode("mode", mode=mode))

    async def learners(self) -> list[Learner]:
        fields = _pairs((await self._run([[b"HGETALL", self._key("learners")]]))[0])
        found = [Learner.from_json(learner_id, data) for learner_id, data in fields.items()]
        return sorted((learner for learner in found if learner is not None), key=lambda one: (one.name, one.id))

    async def answers(self, epoch: int, step: int) -> Counter:
        """The class's choices for the prediction before `step`: choice -> how many."""
        fields = _pairs((await self._run([[b"HGETALL", self._key("answers", epoch, step)]]))[0])
        counts: Counter = Counter()
        for value in fields.values():
            if value.isdigit() and int(value) > 0:
                counts[int(value)] += 1
        return counts

    async def add_teacher_key(self, digest: str) -> None:
        """A serve process's teacher secret (its SHA-256, never the secret): every serve of
        the class accepts the teacher's URL printed by any of them."""
        key = self._key("teachers")
        await self._run([[b"SADD", key, digest.encode()], [b"EXPIRE", key, b"%d" % CLASS_TTL]])

    async def is_teacher_key(self, digest: str) -> bool:
        return bool(int((await self._run([[b"SISMEMBER", self._key("teachers"), digest.encode()]]))[0]))

    # -- a learner ------------------------------------------------------------------

    async def progress(self, learner: Learner) -> None:
        """Join, or say where the learner is now (and the learner's name, kept after they
        leave, for the class's answers as CSV)."""
        key, names = self._key("learners"), self._key("names")
        await self._run([[b"HSET", names, learner.id.encode(), learner.name.encode()],
                         [b"EXPIRE", names, b"%d" % CLASS_TTL]])
        await self._write(key, [b"HSET", key, learner.id.encode(), learner.to_json()],
                          encode("progress", id=learner.id), to_teachers=True)

    async def leave(self, learner_id: str) -> None:
        key = self._key("learners")
        await self._write(key, [b"HDEL", key, learner_id.encode()], encode("progress", id=learner_id),
                          to_teachers=True)

    async def answer(self, learner_id: str, epoch: int, step: int, choice: int) -> None:
        key = self._key("answers", epoch, step)
        await self._write(key, [b"HSET", key, learner_id.encode(), b"%d" % choice],
                          encode("answer", id=learner_id, epoch=epoch, step=step), to_teachers=True)

    # -- both -----------------------------------------------------------------------

    async def listen(self, teacher: bool = False,
                     subscribed: Callable[[], Awaitable[None]] | None = None) -> AsyncIterator[dict]:
        """Every message on the class's channel (a teacher's: and on the teachers' channel), as
        it comes (a connection of its own). `subscribed`, awaited once the channels are
        subscribed and before the first message: what the app reads of the class there
        (catching up) misses nothing, since a message sent meanwhile waits on this connection
        (read first and subscribed after, a lesson opened in between was heard by nobody)."""
        listener = self._listener = TypedConnection(self.address, client_name="playground-class-events")
        channels = [self.channel, *([self.teachers_channel] if teacher else [])]
        try:
            await listener.connect()
            await listener.send_command(b"SUBSCRIBE", *channels)
            confirmed = 0
            while confirmed < len(channels):  # one ["subscribe", channel, count] per channel
                reply = await listener.read_response()
                if isinstance(reply, Err):
                    raise ClassError(reply.message.decode(errors="replace"))
                if isinstance(reply, (Array, list)) and len(reply) == 3 and reply[0] in SUBSCRIBES:
                    confirmed += 1
            if subscribed is not None:
                await subscribed()
            while True:
                reply = await listener.read_response()
                if isinstance(reply, Err):
                    raise ClassError(reply.message.decode(errors="replace"))
                if isinstance(reply, (Array, list)) and len(reply) == 3 and reply[0] == b"message":
                    message = decode(bytes(reply[2])) if isinstance(reply[2], (Bulk, bytes)) else None
                    if message is not None:
                        yield message
        except OSError as exc:
            raise ClassError(str(exc)) from None
        finally:
            await listener.close()
