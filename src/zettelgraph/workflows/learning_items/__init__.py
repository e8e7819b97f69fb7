"""Learning Item Graph: reviewed concepts -> cards (flashcard, cloze, multiple choice, relation),
checked, de-duplicated and proposed for the reader's review."""
