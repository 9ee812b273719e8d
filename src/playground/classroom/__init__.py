"""Class mode (`redis-playground serve --class`): a teacher's tab leads, learners' tabs
follow. The protocol lives here, free of Textual (protocol.py); the screens are in tui/.

Everything goes through one Redis the class owns (serve's private one, or --class-url),
under the prefix `redis-playground:class:<name>` (P below; <name>: --class-name):

- `P:state` (hash): `lesson` (the scenario's id; empty: none, the teacher closed it),
  `source` (its TOML text, at most MAX_LESSON_BYTES: learners open exactly what the
  teacher opened, whether or not their own library has it; classroom/lesson_source.py),
  `challenge` ("1" or "0"), `mode` ("follow" or "own"), `step` (how many steps the
  teacher has run), `epoch` (the run: a new one for each lesson the teacher opens, again
  or anew, each restart and each close; answers and progress of an older run are neither
  shown nor counted), `runs` (the count the epochs come from).
- `P:learners` (hash): learner id -> a JSON object `{"name", "epoch", "lesson", "step",
  "total", "right", "answered", "won", "away"}` (`won`: true, false or null; `lesson`: the
  one open in the learner's tab, empty for none; `step`: the steps run; `right` and
  `answered`: of the predictions of steps that have run (an answer given ahead counts once
  the teacher reveals); `away`: when the learner's tab closed, in seconds since the epoch, 0
  while it is open).
- `P:answers:<epoch>:<step>` (hash): learner id -> the choice (1-based) for the prediction
  before step <step> (0-based index of the step it asks about).
- `P:teachers` (set): the SHA-256 of each serve process's teacher secret, so that the
  teacher's URL printed by any serve of the class is the teacher's on every one of them.
- `P:names` (hash): learner id -> the learner's name, kept after they leave (the CSV).
- `P:runs` (hash): epoch -> a JSON object `{"lesson", "challenge", "questions"}` of the run
  the teacher opened (`questions`: step index -> [the question in every language, as
  `{"en": ..., "zh": ...}` (a string: one language, from an older serve), its right
  choice]), for the class's answers as CSV (classroom/answers_csv.py; the overview's `e`).
- `P:events` (channel): one JSON object per change, `{"v": 1, "type": ..., ...}`, a nudge
  to re-read the hashes, which hold the truth (a tab that joins late reads them):
  `lesson` (epoch, lesson, challenge), `step` (epoch, step), `mode` (mode) from the
  teacher; `release` (id) from the teacher: that learner's app ends (its session, and so
  its --max-tabs place, with it); `end` (epoch) from the teacher: the class is over, its
  lesson closed (the run `epoch` has none) and every learner's app ends; `progress` (id)
  and `answer` (id, epoch, step) from learners. `serve --new-period` deletes every key of
  the class (ClassLink.new_period).

Every key expires CLASS_TTL seconds after its last write: a shared Redis is left clean."""
