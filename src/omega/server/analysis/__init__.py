"""The analysis board: a study of any position (of a finished game, or an empty board) as a
tree of variations, saved per owner, shared read-only by an unguessable link and copied,
with the computer's evaluation of each position searched in the computer players' workers."""
