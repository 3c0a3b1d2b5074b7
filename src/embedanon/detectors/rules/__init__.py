"""Decode rules of the ``model`` detector: NAME spans the per-token decode missed or cut short, and
DATE spans over a list or range of dates or with function words at their edges.

Each rule is a small :class:`~.base.Rule` (a name and a function ``apply(context, spans) ->
spans``); :data:`RULES` declares them in the one order :func:`apply_rules` runs them, over one
:class:`~.base.RuleContext` built per text. A NAME rule adds or widens NAME spans (``name_edges``
only trims punctuation); the last three (:mod:`.dates`) only remove characters outside every
``regex`` date from DATE spans: list separators and range joiners between two dates, so a list or
range becomes one span per date, and function words and punctuation at a span's edges;
``street_edges`` (:mod:`.streets`) ends an ADDRESS span at its street word and
``address_evidence`` drops one with nothing of an address in it. Each rule
was chosen by a development round on generated data (their records are in ``research/detection/``;
docs/decisions holds the choices made since on real text). Every rule runs on every text: the
rules are part of the detector, not of a trained model's manifest.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..base import Span
from .base import Rule, RuleContext
from .context import (
    age_after_name,
    extend_coordinations,
    join_inverted_names,
    name_after_honorifics,
    name_after_kin,
    propagate_names,
)
from .dates import drop_non_dates, split_date_lists, split_date_ranges, trim_date_edges
from .layout import email_shapes, join_name_particles, name_before_own_email
from .lists import name_list_items
from .streets import drop_addresses_without_evidence, trim_street_edges
from .turns import drop_role_labels, name_after_greetings, name_chat_handles, name_speaker_turns
from .words import (
    complete_name_pairs,
    drop_calendar_names,
    drop_common_words,
    drop_dictionary_words,
    drop_drug_names,
    drop_exclamations,
    drop_group_names,
    drop_public_figures,
    join_running_inversions,
    name_orphan_tokens,
    trim_lower_edges,
    trim_name_edges,
    widen_to_whole_words,
)

#: the decode rules, in the order they run: the DATE rules last, so the NAME rules see the DATE
#: spans the decode gave
RULES: tuple[Rule, ...] = (
    Rule("email_shapes", email_shapes),
    Rule("orphan_names", name_orphan_tokens),
    Rule("role_labels", drop_role_labels),
    Rule("common_words", drop_common_words),
    Rule("dictionary_words", drop_dictionary_words),
    Rule("drug_names", drop_drug_names),
    Rule("exclamations", drop_exclamations),
    Rule("coordination", extend_coordinations),
    Rule("speaker_turns", name_speaker_turns),
    Rule("chat_handles", name_chat_handles),
    Rule("kin", name_after_kin),
    Rule("propagation", propagate_names),
    Rule("inverted_names", join_inverted_names),
    Rule("honorifics", name_after_honorifics),
    Rule("salutations", name_after_greetings),
    Rule("lists", name_list_items),
    Rule("particles", join_name_particles),
    Rule("inverted_pairs", join_running_inversions),
    Rule("email_names", name_before_own_email),
    Rule("name_pairs", complete_name_pairs),
    Rule("whole_words", widen_to_whole_words),
    Rule("name_edges", trim_name_edges),
    Rule("lower_edges", trim_lower_edges),
    Rule("street_edges", trim_street_edges),
    Rule("address_evidence", drop_addresses_without_evidence),
    Rule("public_figures", drop_public_figures),
    Rule("group_names", drop_group_names),
    Rule("calendar_names", drop_calendar_names),
    Rule("ages", age_after_name),
    Rule("role_labels_kept", drop_role_labels),
    Rule("date_lists", split_date_lists),
    Rule("date_ranges", split_date_ranges),
    Rule("date_edges", trim_date_edges),
    Rule("non_dates", drop_non_dates),
)

#: the names of :data:`RULES`, in order
RULE_NAMES: tuple[str, ...] = tuple(rule.name for rule in RULES)

__all__ = [
    "RULES",
    "RULE_NAMES",
    "Rule",
    "RuleContext",
    "age_after_name",
    "apply_rules",
    "complete_name_pairs",
    "drop_addresses_without_evidence",
    "drop_common_words",
    "drop_drug_names",
    "drop_exclamations",
    "drop_group_names",
    "drop_non_dates",
    "drop_public_figures",
    "drop_role_labels",
    "drop_dictionary_words",
    "email_shapes",
    "extend_coordinations",
    "join_inverted_names",
    "join_name_particles",
    "join_running_inversions",
    "name_after_greetings",
    "name_after_honorifics",
    "name_after_kin",
    "name_before_own_email",
    "name_list_items",
    "name_orphan_tokens",
    "name_speaker_turns",
    "propagate_names",
    "split_date_lists",
    "split_date_ranges",
    "trim_date_edges",
    "trim_lower_edges",
    "trim_name_edges",
    "trim_street_edges",
    "widen_to_whole_words",
]


def apply_rules(context: RuleContext, spans: list[Span], rules: Sequence[Rule] = RULES) -> list[Span]:
    """The spans after ``rules`` (default: every decode rule, :data:`RULES`), in order.

    Args:
        context: the text as the rules read it (built once per text).
        spans: the decoded spans, sorted and disjoint.
        rules: the rules to run, in order (a subset serves tests and ablations).

    Returns:
        The spans, sorted and disjoint.
    """
    for rule in rules:
        spans = rule(context, spans)
    return spans
