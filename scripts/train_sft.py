"""LoRA fine-tuning on solver-certified reasoning, with the semantic loss and the metric inside the loop.

    python scripts/train_sft.py --model smollm2 --max-steps 20 --out runs/sft [--train-framings escalation]
        [--eval-config wfs44] [--eval-framing escalation abstract] [--semantic-loss-weight 0.1] [--seed 0]

See ``naf_bench.training`` and the README section "Training".
"""

from naf_bench.training.command import main

if __name__ == "__main__":
    main()
