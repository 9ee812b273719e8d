"""The class protocol (playground.classroom) against real servers: the teacher's lesson,
step and mode reach a listener as messages and stay in the hashes for one who joins late;
learners' progress and answers come back as the overview and the histogram; every key
expires; the same over TCP with a password (--class-url)."""

from __future__ import annotations

import asyncio
import secrets
import socket
import subprocess
import time

import pytest

from playground.classroom import class_server
from playground.classroom.protocol import (CLASS_TTL, FOLLOW, OWN, ClassLink, Learner, decode, encode)

DEADLINE = 20.0


async def _next_messages(listening, count: int) -> list[dict]:
    return [await asyncio.wait_for(listening.__anext__(), DEADLINE) for _ in range(count)]


async def _subscribed(link: ClassLink, publisher: ClassLink):
    """A listener that is surely subscribed: PUBSUB NUMSUB says so before anything is sent."""
    listening = link.listen()
    first = asyncio.ensure_future(listening.__anext__())
    end = time.monotonic() + DEADLINE
    while (await publisher.conn.run([[b"PUBSUB", b"NUMSUB", link.channel]]))[0][1] < 1:
        assert time.monotonic() < end, "the listener never subscribed"
        await asyncio.sleep(0.01)  # polling a condition, bounded
    return listening, first


def test_messages_are_versioned_json_and_others_are_ignored():
    assert decode(encode("step", epoch=2, step=3)) == {"v": 1, "type": "step", "epoch": 2, "step": 3}
    for junk in (b"hello", b"[1]", b'{"type": "step"}', b'{"v": 2, "type": "step"}', b"\xff"):
        assert decode(junk) is None


def _private_link(private_server, name="class") -> ClassLink:
    return ClassLink(class_server.address(class_server.private_url(private_server)), name)


def test_the_teacher_leads_and_a_late_learner_catches_up(private_server):
    async def scenario() -> None:
        teacher, learner = _private_link(private_server), _private_link(private_server)
        try:
            listening, first = await _subscribed(learner, teacher)
            epoch = await teacher.open_lesson("lost-update", challenge=False)
            await teacher.set_step(epoch, 1)
            await teacher.set_mode(OWN)
            messages = [await asyncio.wait_for(first, DEADLINE), *await _next_messages(listening, 2)]
            assert [m["type"] for m in messages] == ["lesson", "step", "mode"]
            assert messages[0] == {"v": 1, "type": "lesson", "epoch": epoch, "lesson": "lost-update",
                                   "challenge": False}
            assert messages[1]["step"] == 1 and messages[2]["mode"] == OWN
            late = _private_link(private_server)  # one who joins now reads the hashes
            state = await late.state()
            assert (state.lesson, state.challenge, state.mode, state.step, state.epoch) == \
                ("lost-update", False, OWN, 1, epoch)
            again = await teacher.open_lesson("watch-retry", challenge=True)
            assert again == epoch + 1
            state = await late.state()
            assert (state.lesson, state.challenge, state.step) == ("watch-retry", True, 0)
            await listening.aclose()
            await late.close()
        finally:
            await teacher.close()
            await learner.close()

    asyncio.run(scenario())


def test_progress_and_answers_make_the_overview_and_the_histogram(private_server):
    async def scenario() -> None:
        teacher, ana, bo = (_private_link(private_server) for _ in range(3))
        try:
            epoch = await teacher.open_lesson("lost-update", challenge=False)
            assert await teacher.state() is not None and (await teacher.state()).mode == FOLLOW
            await ana.progress(Learner("a1", "Ana", epoch, "lost-update", step=2, total=6))
            await bo.progress(Learner("b2", "Bo 博", epoch, "lost-update", step=3, total=6, won=True))
            await ana.answer("a1", epoch, 2, 1)
            await bo.answer("b2", epoch, 2, 2)
            await bo.answer("b2", epoch, 2, 1)  # changed her mind: one answer each
            await ana.answer("a1", epoch - 1, 2, 3)  # an older lesson's: not counted here
            assert await teacher.answers(epoch, 2) == {1: 2}
            assert await teacher.answers(epoch, 4) == {}
            learners = await teacher.learners()
            assert [(one.name, one.step, one.won) for one in learners] == [("Ana", 2, None), ("Bo 博", 3, True)]
            await ana.leave("a1")
            assert [one.name for one in await teacher.learners()] == ["Bo 博"]
            for key in (b"state", b"learners", b"answers:%d:2" % epoch):
                ttl = (await teacher.conn.run([[b"TTL", b"redis-playground:class:class:" + key]]))[0]
                assert 0 < ttl <= CLASS_TTL, key
        finally:
            for link in (teacher, ana, bo):
                await link.close()

    asyncio.run(scenario())


def test_learners_progress_and_answers_reach_the_teachers_only(private_server):
    async def scenario() -> None:
        teacher, ana, bo = (_private_link(private_server) for _ in range(3))
        heard: dict[str, list[dict]] = {"teacher": [], "bo": []}

        async def hear(link: ClassLink, who: str, teacher_role: bool) -> None:
            async for message in link.listen(teacher_role):
                heard[who].append(message)

        tasks = [asyncio.ensure_future(hear(teacher, "teacher", True)), asyncio.ensure_future(hear(bo, "bo", False))]
        try:
            end = time.monotonic() + DEADLINE
            while (await ana.conn.run([[b"PUBSUB", b"NUMSUB", ana.channel, ana.teachers_channel]]))[0] \
                    != [ana.channel, 2, ana.teachers_channel, 1]:  # both on the class's, the teacher on its own
                assert time.monotonic() < end, "the listeners never subscribed"
                await asyncio.sleep(0.01)  # polling a condition, bounded
            epoch = await teacher.open_lesson("lost-update", challenge=False)
            await ana.progress(Learner("a1", "Ana", epoch, "lost-update", step=1, total=6))
            await ana.answer("a1", epoch, 1, 2)
            await teacher.set_step(epoch, 1)  # the last one sent: once Bo has it, Bo had all he will get
            while not any(m["type"] == "step" for m in heard["bo"]) or len(heard["teacher"]) < 4:
                assert time.monotonic() < end, f"the messages never came: {heard}"
                await asyncio.sleep(0.01)  # polling a condition, bounded
            assert [m["type"] for m in heard["teacher"]] == ["lesson", "progress", "answer", "step"]
            assert [m["type"] for m in heard["bo"]] == ["lesson", "step"]
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for link in (teacher, ana, bo):
                await link.close()

    asyncio.run(scenario())


def test_two_classes_share_one_redis_apart(private_server):
    async def scenario() -> None:
        first, second = _private_link(private_server, "room-1"), _private_link(private_server, "room-2")
        try:
            await first.open_lesson("lost-update", challenge=False)
            assert (await second.state()).lesson == ""
        finally:
            await first.close()
            await second.close()

    asyncio.run(scenario())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_class_url_over_tcp_with_a_password(server_binary, tmp_path):
    """--class-url redis://:password@127.0.0.1:port: the same protocol; a wrong password is
    one clear error, not a hang."""
    port, password = _free_port(), secrets.token_hex(16)
    proc = subprocess.Popen([server_binary.path, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path), "--requirepass", password],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    async def scenario() -> None:
        link = ClassLink(class_server.address(f"redis://:{password}@127.0.0.1:{port}"))
        end = time.monotonic() + DEADLINE
        while True:
            try:
                epoch = await link.open_lesson("lost-update", challenge=False)
                break
            except ConnectionError:
                assert time.monotonic() < end, "the server never answered"
                await asyncio.sleep(0.05)  # polling for the server to listen, bounded
        try:
            listening, first = await _subscribed(ClassLink(link.address), link)
            await link.set_step(epoch, 4)
            assert (await asyncio.wait_for(first, DEADLINE))["step"] == 4
            await listening.aclose()
        finally:
            await link.close()
        wrong = ClassLink(class_server.address(f"redis://:nope@127.0.0.1:{port}"))
        with pytest.raises(ConnectionError):
            await wrong.state()
        await wrong.close()

    try:
        asyncio.run(scenario())
    finally:
        proc.terminate()
        proc.wait(timeout=DEADLINE)


def test_the_teacher_url_of_any_serve_of_the_class_is_the_teachers(private_server):
    """Several serve processes share one class: each prints its own teacher URL, and each
    takes any of them (the secrets' SHA-256 in the class's Redis, never the secrets)."""
    import json

    from playground.cli.class_serve import ClassSetup, _check

    url = class_server.private_url(private_server)
    first, second = ClassSetup(url, "class"), ClassSetup(url, "class")
    other_class = ClassSetup(url, "other")

    async def scenario() -> None:
        for setup in (first, second, other_class):
            await _check(setup)
        try:
            hello = lambda secret: json.dumps(["class", {"teacher": secret}])  # noqa: E731
            assert await first.is_teacher(hello(first.teacher_secret))
            assert await first.is_teacher(hello(second.teacher_secret))
            assert not await first.is_teacher(hello(other_class.teacher_secret))
            for wrong in (hello(""), hello(secrets.token_urlsafe(24)), "junk", None, '["class", 3]',
                          json.dumps(["stdin", {"teacher": first.teacher_secret}])):
                assert not await first.is_teacher(wrong), wrong
            stored = (await first.link.conn.run([[b"SMEMBERS", b"redis-playground:class:class:teachers"]]))[0]
            assert len(stored) == 2 and first.teacher_secret.encode() not in stored
        finally:
            await first.link.close()

    asyncio.run(scenario())
