"""Where things are in the checkout, for tests in any folder."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
SCENARIOS = ROOT / "scenarios"
DOCS = ROOT / "docs"
TESTS = ROOT / "tests"
GOLDEN = TESTS / "golden"
SHARED = ROOT.parent / "shared"  # the course's own documents, beside the checkout
