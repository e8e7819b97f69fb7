"""Concept Extraction Graph: quotes -> atomic concepts, checked, related, reviewed, committed."""
