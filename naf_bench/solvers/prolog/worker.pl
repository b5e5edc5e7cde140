% The SWI-Prolog worker: both Prolog engines, as a line-oriented server on stdin/stdout.
%
% Requests: wfs(Id, Rules, N).       well-founded semantics by tabling: holds/1 tabled, tnot/1 for negation
%           fixpoint(Id, Components, N).  the alternating fixpoint, written here without tabling, one component
%                                    at a time: Components = [component(Atoms, Rules), ...], dependencies first
%           with atoms numbered 0..N-1 and Rules = [rule(Head, [Positive, ...], [Negative, ...]), ...]
%           sldnf(Id, Program, Clauses, Atoms, Goal, Limit).  SLDNF by SWI-Prolog itself (sldnf.pl), the
%                                                    clauses loaded under the name Program (a number)
%           sldnf_again(Id, Program, Goal, Limit).   the same on the clauses loaded as Program, if they are
%                                                    still the ones loaded (else `ok <Id> unloaded`)
% Reply:    `ok <Id> <t|f|u per atom, in number order>`, `ok <Id> <true|false|loop> <inferences>`, or
%           `error <Id> <message>`: the id tells the client a reply is the answer to its request and not
%           to an earlier one.
%
% For the WFS the program is data (rule/3 terms over atom numbers) interpreted here, so no name a program
% (or a model that wrote it) chose reaches tabling; for SLDNF its clauses, atoms prefixed so that none names
% a built-in or an operator, are asserted into a module of their own. No program text is ever consulted.
% SWI-Prolog 9.0's tabling can leave an atom undefined that the well-founded semantics decides
% (a positive loop through conditional answers needs answer completion: `a6 :- tnot(a2), a2.  a6 :- a6.`
% in the tests); the fixpoint settles those cases.

:- initialization(main, main).
:- use_module(sldnf).

:- dynamic rule/3.
:- table holds/1.

holds(Atom) :-
    rule(Atom, Positive, Negative),
    all_hold(Positive),
    none_holds(Negative).

all_hold([]).
all_hold([Atom|Atoms]) :- holds(Atom), all_hold(Atoms).

none_holds([]).
none_holds([Atom|Atoms]) :- tnot(holds(Atom)), none_holds(Atoms).

main :-
    set_prolog_flag(stack_limit, 1073741824),
    % warm-up: tabling is autoloaded, and SLDNF's first-call work done, before the first program (whose
    % inferences must not count it)
    with_output_to(string(_), handle(wfs(0, [rule(0, [], [1]), rule(1, [], [0])], 2))),
    with_output_to(string(_), handle(sldnf(0, warmup, [(n_a :- \+ n_b)], [n_a], n_a, 100))),
    current_prolog_flag(version_data, swi(Major, Minor, Patch, _)),
    format("ready ~w.~w.~w~n", [Major, Minor, Patch]),
    flush_output,
    serve.

serve :-
    read_term(user_input, Request, []),
    (   Request == end_of_file
    ->  true
    ;   ( compound(Request) -> arg(1, Request, Id) ; Id = none ),
        (   catch(handle(Request), Error, format("error ~w ~q~n", [Id, Error]))
        ->  true
        ;   format("error ~w failed~n", [Id])
        ),
        flush_output,
        serve
    ).

handle(wfs(Id, Rules, N)) :-
    retractall(rule(_, _, _)),
    abolish_all_tables,
    forall(member(Rule, Rules), assertz(Rule)),
    Last is N - 1,
    findall(Value, (between(0, Last, Atom), tabled_value(Atom, Value)), Values),
    reply(Id, Values).
handle(sldnf(Id, Program, Clauses, Atoms, Goal, Limit)) :-
    naf_sldnf_run(Program, Clauses, Atoms, Goal, Limit, Result, Inferences),
    format("ok ~w ~w ~w~n", [Id, Result, Inferences]).
handle(sldnf_again(Id, Program, Goal, Limit)) :-
    (   naf_sldnf_rerun(Program, Goal, Limit, Result, Inferences)
    ->  format("ok ~w ~w ~w~n", [Id, Result, Inferences])
    ;   format("ok ~w unloaded~n", [Id])
    ).
handle(fixpoint(Id, Components, N)) :-
    retractall(fixed(_, _)),
    forall(member(component(Atoms, Rules), Components), fix_component(Atoms, Rules)),
    Last is N - 1,
    findall(Value, (between(0, Last, Atom), ( fixed(Atom, Value) -> true ; Value = f )), Values),
    retractall(fixed(_, _)),
    reply(Id, Values).

reply(Id, Values) :-
    atomic_list_concat(Values, Codes),
    format("ok ~w ~w~n", [Id, Codes]).

% call_delays/2 gives the delays of an answer: `true` when it is unconditional (true), others when
% it is undefined; no answer means false. It appends to a global delay list that only backtracking
% restores, so in this server that never backtracks each call runs inside findall/3 (else the list
% grows without end: slower calls, then stack overflows in '$wfs_call').
tabled_value(Atom, Value) :-
    findall(Delays, call_delays(holds(Atom), Delays), Answers),
    (   Answers == [] -> Value = f
    ;   memberchk(true, Answers) -> Value = t
    ;   Value = u
    ).

% The alternating fixpoint, one component of the dependency graph at a time, dependencies first (Components
% comes in that order): fixed(Atom, t | u) holds the value of each atom of the components done, false atoms are
% left out. Inside a component: True = Γ(Possible), Possible = Γ(True), from True = {} until both stop changing,
% where Γ reads an atom below the component from fixed/2: as true only when it is t when it computes True, and
% when it is t or u when it computes Possible (the least model below, computed by the same alternation).
:- dynamic fixed/2.

fix_component(Atoms, Rules) :-
    gamma(possible, Atoms, Rules, [], Possible0),
    alternate(Atoms, Rules, [], Possible0, True, Possible),
    forall(member(Atom, True), assertz(fixed(Atom, t))),
    forall(( member(Atom, Possible), \+ ord_memberchk(Atom, True) ), assertz(fixed(Atom, u))).

alternate(Atoms, Rules, True0, Possible0, True, Possible) :-
    gamma(true, Atoms, Rules, Possible0, True1),
    gamma(possible, Atoms, Rules, True1, Possible1),
    (   True1 == True0, Possible1 == Possible0
    ->  True = True1, Possible = Possible1
    ;   alternate(Atoms, Rules, True1, Possible1, True, Possible)
    ).

% Γ(I) on a component: least model of the reduct of its rules by I (ordered sets of its atoms).
gamma(Mode, Atoms, Rules, I, Model) :-
    least_model(Mode, Atoms, Rules, I, [], Model).

least_model(Mode, Atoms, Rules, I, Model0, Model) :-
    findall(Head,
            ( member(rule(Head, Positive, Negative), Rules),
              \+ ( member(N, Negative), \+ absent(Mode, Atoms, I, N) ),
              \+ ( member(P, Positive), \+ present(Mode, Atoms, Model0, P) ) ),
            Heads),
    sort(Heads, Derived),
    ord_union(Model0, Derived, Model1),
    (   Model1 == Model0
    ->  Model = Model0
    ;   least_model(Mode, Atoms, Rules, I, Model1, Model)
    ).

% present: a positive literal holds (inside: in the model so far; below: t, or also u for Possible)
present(Mode, Atoms, Model, Atom) :-
    (   ord_memberchk(Atom, Atoms)
    ->  ord_memberchk(Atom, Model)
    ;   fixed(Atom, Value),
        ( Value == t -> true ; Mode == possible )
    ).

% absent: a negative literal holds (inside: outside I; below: f, or also u for Possible)
absent(Mode, Atoms, I, Atom) :-
    (   ord_memberchk(Atom, Atoms)
    ->  \+ ord_memberchk(Atom, I)
    ;   fixed(Atom, Value)
    ->  Value == u, Mode == possible
    ;   true
    ).
