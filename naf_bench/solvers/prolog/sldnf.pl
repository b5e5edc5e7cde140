% SLDNF by SWI-Prolog's own computation rule, loaded into the worker (worker.pl).
% naf_sldnf_run(+Clauses, +Atoms, +Goal, +Limit, -Result, -Inferences)
%   Result = true | false | loop; loop means the inference limit was exhausted (or the stacks were).
%   Atoms: those the clauses define; the previous run's are retracted first, so none stays behind for long.
:- module(naf_sldnf, [naf_sldnf_run/6]).

% An atom without clauses fails, as in a program that declares every atom dynamic (no declarations
% per run: they were a fifth of a small program's cost).
:- set_prolog_flag(naf_sldnf_work:unknown, fail).

:- dynamic loaded/1.  % the atoms of the program last loaded

naf_sldnf_run(Clauses, Atoms, Goal, Limit, Result, Inferences) :-
    forget_program,
    assertz(loaded(Atoms)),
    forall(member(Clause, Clauses), assertz(naf_sldnf_work:Clause)),
    statistics(inferences, I0),
    catch(run_limited(naf_sldnf_work:Goal, Limit, Result),
          error(resource_error(_), _),
          Result = loop),
    statistics(inferences, I1),
    Inferences is I1 - I0.

forget_program :-
    forall(retract(loaded(Atoms)), forall(member(Atom, Atoms), retractall(naf_sldnf_work:Atom))).

run_limited(Goal, Limit, Result) :-
    (   call_with_inference_limit(Goal, Limit, Outcome)
    ->  ( Outcome == inference_limit_exceeded -> Result = loop ; Result = true )
    ;   Result = false
    ).
