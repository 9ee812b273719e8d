"""Steps whose result the server itself says may differ from run to run (COMMAND INFO's
tips, through the catalogue: `Catalogue.nondeterministic`): SPOP, SRANDMEMBER,
RANDOMKEY, HRANDFIELD, TIME, `XADD *` ... Two runs of one schedule may then end
differently, so the explorer shows them, and never says that every schedule ends the
same when that may be chance.

Steps whose reply holds a reading of the clock (TTL, PTTL, OBJECT IDLETIME and FREQ,
XPENDING's and XINFO's idle times: `Catalogue.clock_output`) are named apart
(`clock_steps`): their replies are compared with those readings masked
(explore/one_schedule.py), so milliseconds never split outcomes. Saved for a later
command, or a write whose effect depends on the time (XCLAIM's min-idle-time), one is
named among the random steps instead: what it passes on is not masked."""

from __future__ import annotations

from playground.resp.cli_secrets import redact_line
from playground.scenario.model import Step

OUTPUT, ORDER = b"nondeterministic_output", b"nondeterministic_output_order"


def random_steps(catalogue, programs: dict[str, list[Step]], by: str) -> list[str]:
    """`A1 SPOP s` for each step whose randomness the outcomes compared would show: in
    the replies (`by` replies or both), any; in the final state, one whose random result
    is written (a command flagged `write`, but for XADD's id) or saved for a later
    command (`save`).
    After `catalogue.learn` of the steps' names."""
    out = []
    for client, program in programs.items():
        for index, step in enumerate(program):
            argv = step.argv
            tip = catalogue.nondeterministic(argv) if argv else None
            if tip is None or argv is None:
                continue
            name = bytes(argv[0]).lower()
            info = catalogue.commands.get(name)
            # (XADD's clock-made id is no part of the state compared: explore/snapshot.py shows it as `*`)
            writes = tip == OUTPUT and name != b"xadd" and info is not None and b"write" in info.flags
            if catalogue.clock_output(argv) and not step.save and not writes:
                continue   # its reply is compared without the clock's readings (clock_steps)
            if by != "state" or step.save or writes:
                out.append(f"{client}{index + 1} {redact_line(step.display, list(argv))}")
    return out


def clock_steps(catalogue, programs: dict[str, list[Step]], by: str) -> list[str]:
    """`A2 OBJECT IDLETIME k` for each step whose reply is compared (`by` replies or
    both) with the readings of the clock in it masked (not saved, not a write: those
    are among `random_steps`). After `catalogue.learn` of the steps' names."""
    if by == "state":
        return []
    out = []
    for client, program in programs.items():
        for index, step in enumerate(program):
            if not step.argv or step.save or not catalogue.clock_output(step.argv):
                continue
            info = catalogue.commands.get(bytes(step.argv[0]).lower())
            if info is not None and b"write" in info.flags:
                continue
            out.append(f"{client}{index + 1} {redact_line(step.display, list(step.argv))}")
    return out
