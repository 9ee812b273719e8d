"""The stepping gate: programs of the learner's own (redis-py, ioredis, ...) as clients of
the playground. frames.py finds whole RESP frames in raw bytes, endpoint.py is the RESP
endpoint that holds each command until it is released, programs.py starts a lesson's
programs, lesson.py hooks them into the scenario runner."""
