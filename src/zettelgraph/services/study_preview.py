"""What each rating would schedule a card for, and the short label a rating button shows."""

from __future__ import annotations

from datetime import datetime, timedelta

from fsrs import Rating, Scheduler

from zettelgraph.models import (
    LearningItem,
)
from zettelgraph.services.study import RATINGS, as_utc, card_of


def preview(scheduler: Scheduler, item: LearningItem, *, now: datetime) -> dict[int, timedelta]:
    """How long until the card comes back for each rating (what the buttons show).

    Args:
        scheduler: the FSRS scheduler (`scheduler_for`).
        item: the card.
        now: the clock.

    Returns:
        Rating (1-4) -> the time until the card is due again after it.
    """
    card = card_of(item, now)
    # Fuzz would make each preview a new draw; show the interval before fuzz.
    plain = Scheduler(
        parameters=scheduler.parameters,
        desired_retention=scheduler.desired_retention,
        learning_steps=scheduler.learning_steps,
        relearning_steps=scheduler.relearning_steps,
        maximum_interval=scheduler.maximum_interval,
        enable_fuzzing=False,
    )
    out: dict[int, timedelta] = {}
    for value in RATINGS:
        after, _ = plain.review_card(card, Rating(value), review_datetime=as_utc(now))
        out[value] = after.due - as_utc(now)
    return out


def interval_label(delta: timedelta) -> str:
    """`<1m`, `10m`, `3h`, `4d`, `2mo`, `1.5y`: the span a button promises.

    Args:
        delta: the time until the card would be due again.

    Returns:
        A short label: under a minute, minutes, hours, days (under 30), months of 30 days (under
        365), else years with one decimal.
    """
    seconds = delta.total_seconds()
    if seconds < 60:
        return "<1m"
    if seconds < 3600:
        return f"{round(seconds / 60)}m"
    if seconds < 86400:
        return f"{round(seconds / 3600)}h"
    days = seconds / 86400
    if days < 30:
        return f"{round(days)}d"
    if days < 365:
        return f"{round(days / 30)}mo"
    return f"{days / 365:.1f}y"
