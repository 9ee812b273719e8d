"""The stepping gate: programs of the learner's own (redis-py, ioredis, ...) as clients of
the playground. frames.py finds whole RESP frames in raw bytes, endpoint.py is the RESP
endpoint that holds each command until it is released, programs.py starts a program
(program_argv.py: its command line, and how messages name it). A lesson's side of its
programs (its file's [programs], its release steps) is in playground.scenario.programs."""
