"""The checks of the book's exercises, one module per chapter (its slug with underscores), each
registering its exercises with ``exercise_judge.checking.exercise``. A module whose name starts
with ``_`` holds helpers that several chapters share, and registers nothing."""
