"""LoRA fine-tuning on certified reasoning with TRL, an optional semantic loss, and the metric inside the loop.

- Training rows: a config's chat messages (``sft``: the prompt, then the certified gold trace ending in
  'ANSWER: X') on the framings named, as prompt-completion pairs, so TRL's ``SFTTrainer`` puts the loss on
  the assistant turn only; peft LoRA adapters.
- Evaluation, before training, every ``eval_steps`` and after: a held-out config (``wfs44``) per framing,
  fed batch by batch to the ``modellog_metric`` evaluate module with per-row conditions and program ids.
  A prompt's prediction is the model's top next token after the chat prompt and 'ANSWER:' (unparsed when
  that token is no letter, so coverage means something); ``forced_choice`` scores the likeliest of A/B/C
  instead; rho and CAcc are those of the NAF-Bench constraints over the A/B/C letter probabilities. With
  ``generate``, greedy generation read by the extractor is scored too.
- Semantic loss (weight W > 0): W * sum over constraints F of -log WMC(F, p), p the model's own letter
  probabilities for the rows of one training program per step (exactly one letter per prompt, the certified
  inclusions between readings, invariance across framings and rule orders), added to TRL's loss.
- DPO (``method="dpo"``): TRL's ``DPOTrainer`` on pairs of a certified trace against the trace of a reading
  whose answer differs, same prompt.

Modules by job: :mod:`.examples` (the rows trained and evaluated on), :mod:`.semantic` (the semantic loss),
:mod:`.held_out` (the metric in the loop), :mod:`.trainer` (one training run), :mod:`.command` (the command line,
seeds and weights compared).
"""
