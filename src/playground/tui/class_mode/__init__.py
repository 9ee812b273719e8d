"""serve --class in the app: the learner's and the teacher's side of a class."""
