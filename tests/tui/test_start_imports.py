"""What the TUI's start leaves for later (issue 27, a lighter start): modules its first
frame does not need are not imported by its start path, and in English the other
languages' catalogues are not compiled (the footer names the next language from that
one entry). Each check runs in a fresh interpreter: another test may have loaded them."""

import subprocess
import sys
from servers import shared

START_PATH = ("import playground.cli.main, playground.server, playground.tui.app\n"
              "playground.server.make_server(playground.server.choose_binary('bundled'))")  # single: not spawned

LATER = ("playground.scenario.model",    # a scenario's model: when one is opened (--clients' limit is apart)
         "playground.server.topology",   # replicas and clusters: --topology, or a scenario's
         "playground.server.node")


def _loaded(code: str, modules) -> list[str]:
    result = subprocess.run([sys.executable, "-c", code + f"\nimport sys\nprint([m for m in {list(modules)!r} "
                                                          "if m in sys.modules])"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return eval(result.stdout.strip().splitlines()[-1])


def test_the_start_path_does_not_import_what_comes_later():
    assert _loaded(START_PATH, LATER) == []


def test_the_check_itself_can_fail():
    assert _loaded("import playground.server.topology, playground.scenario.model", LATER) == list(LATER)


_APP_IN_ENGLISH = """
import asyncio
from playground import i18n
from playground.tui.app import make_app
from playground.tui.widgets.key_footer import KeyFooter
from playground.tui.widgets.key_inspector import KeyInspector

async def main():
    app = make_app({path!r}, lang="en")
    async with app.run_test(size=(120, 35)) as pilot:
        for _ in range(2000):  # the first frame with keys (bounded)
            inspector = app.mode_screen.query_one(KeyInspector) if len(app.screen_stack) > 1 else None
            if inspector is not None and inspector.snapshot is not None:
                break
            await pilot.pause(0.01)
        await pilot.pause()
        footer = " ".join(str(key.render()) for key in app.mode_screen.query_one(KeyFooter).children)
        print(sorted(lang for lang, _ in i18n._translations), i18n.language_name("zh") in footer)

asyncio.run(main())
"""


def test_an_english_start_names_the_next_language_without_compiling_its_catalogue(server_binary):
    result = subprocess.run([sys.executable, "-c", _APP_IN_ENGLISH.format(path=server_binary.path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[] True"  # F12 中文 shown, nothing compiled


async def test_following_the_same_server_again_does_not_read_the_keys_again(server_binary):
    """At start both the app and the mode's screen follow the server; the keys are read
    once (a second read 0.1 s later held up the first quiet frame). A new server's
    inspector (after every start) is read at once."""
    from playground.tui.app import make_app
    from playground.tui.widgets.key_inspector import KeyInspector
    from pilot import started, wait_until

    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        widget = app.mode_screen.query_one(KeyInspector)
        await wait_until(pilot, lambda: widget.snapshot is not None and not widget._loading)
        widget.attach(app.inspector)
        assert not widget._loading  # the same inspector: no read asked for
        await app.playground.restart()
        await wait_until(pilot, lambda: widget.inspector is app.playground.reader)  # the new one is followed
