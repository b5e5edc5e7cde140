% SLDNF by SWI-Prolog's own computation rule, loaded into the worker (worker.pl).
% naf_sldnf_run(+Program, +Clauses, +Atoms, +Goal, +Limit, -Result, -Inferences)
%   Result = true | false | loop; loop means the inference limit was exhausted (or the stacks were).
%   Program: a name for the clauses (the request's id); Atoms: those they define; the previous run's are
%   retracted first, so none stays behind for long.
% naf_sldnf_rerun(+Program, +Goal, +Limit, -Result, -Inferences)
%   the same query again on the clauses still loaded, under another limit (a raised one: a large program is
%   not sent and asserted once per limit); fails when Program's clauses are no longer the ones loaded.
:- module(naf_sldnf, [naf_sldnf_run/7, naf_sldnf_rerun/5]).

% An atom without clauses fails, as in a program that declares every atom dynamic (no declarations
% per run: they were a fifth of a small program's cost).
:- set_prolog_flag(naf_sldnf_work:unknown, fail).

:- dynamic loaded/2.  % the name and atoms of the program last loaded

naf_sldnf_run(Program, Clauses, Atoms, Goal, Limit, Result, Inferences) :-
    forget_program,
    forall(member(Clause, Clauses), assertz(naf_sldnf_work:Clause)),
    assertz(loaded(Program, Atoms)),
    run_counted(Goal, Limit, Result, Inferences).

naf_sldnf_rerun(Program, Goal, Limit, Result, Inferences) :-
    loaded(Program, _),
    run_counted(Goal, Limit, Result, Inferences).

run_counted(Goal, Limit, Result, Inferences) :-
    statistics(inferences, I0),
    catch(run_limited(naf_sldnf_work:Goal, Limit, Result),
          error(resource_error(_), _),
          Result = loop),
    statistics(inferences, I1),
    Inferences is I1 - I0.

forget_program :-
    forall(retract(loaded(_, Atoms)), forall(member(Atom, Atoms), retractall(naf_sldnf_work:Atom))).

run_limited(Goal, Limit, Result) :-
    (   call_with_inference_limit(Goal, Limit, Outcome)
    ->  ( Outcome == inference_limit_exceeded -> Result = loop ; Result = true )
    ;   Result = false
    ).
