% SLDNF by SWI-Prolog's own computation rule, loaded into the pyswip process.
% naf_sldnf_run(+Clauses, +Atoms, +Goal, +Limit, -Result, -Inferences)
%   Result = true | false | loop; loop means the inference limit was exhausted (or the stacks were).
:- module(naf_sldnf, [naf_sldnf_run/6]).

naf_sldnf_run(Clauses, Atoms, Goal, Limit, Result, Inferences) :-
    forget_program,  % a run cut short (Ctrl-C in the host) must not leave its clauses to the next
    nb_setval(naf_sldnf_atoms, Atoms),
    forall(member(Atom, Atoms), dynamic(naf_sldnf_work:Atom/0)),
    forall(member(Clause, Clauses), assertz(naf_sldnf_work:Clause)),
    statistics(inferences, I0),
    catch(run_limited(naf_sldnf_work:Goal, Limit, Result),
          error(resource_error(_), _),
          Result = loop),
    statistics(inferences, I1),
    Inferences is I1 - I0,
    forget_program.

forget_program :-
    (   nb_current(naf_sldnf_atoms, Atoms)
    ->  forall(member(Atom, Atoms), retractall(naf_sldnf_work:Atom))
    ;   true
    ),
    nb_setval(naf_sldnf_atoms, []).

run_limited(Goal, Limit, Result) :-
    (   call_with_inference_limit(Goal, Limit, Outcome)
    ->  ( Outcome == inference_limit_exceeded -> Result = loop ; Result = true )
    ;   Result = false
    ).
