% Well-founded semantics in SWI-Prolog, as a line-oriented server on stdin/stdout.
%
% tabling(ProgramText, [Atom, ...]).
%     SWI-Prolog tabling (table/tnot, call_delays/2); each program is compiled into a temporary module.
% fixpoint([r(Head, Positive, Negative), ...], [Atom, ...]).
%     The alternating fixpoint, written here in Prolog without tabling.
% Reply: `ok <t|f|u per atom>` or `error <message>`.
%
% Both exist because SWI-Prolog 9.0's tabling is not complete for WFS on every program: the
% differential run found answers left undefined that are true or false (a residual `a :- tnot(q)`
% beside the unconditional fact `q`), and stack overflows inside '$wfs_call'. The caller compares
% tabling first and states in the certificate when the fixpoint had to decide.

:- initialization(main, main).

main :-
    set_prolog_flag(stack_limit, 268435456),
    % warm-up: autoloading the tabling library happens before the first program
    with_output_to(string(_), handle(tabling(":- table a/0, b/0.\na :- tnot(b).\nb :- tnot(a).", [a, b]))),
    current_prolog_flag(version_data, swi(Major, Minor, Patch, _)),
    format("ready ~w.~w.~w~n", [Major, Minor, Patch]),
    flush_output,
    serve.

serve :-
    read_term(user_input, Request, []),
    (   Request == end_of_file
    ->  true
    ;   catch(handle(Request), Error, reply_error(Error)),
        abolish_all_tables,
        flush_output,
        serve
    ).

handle(tabling(Text, Atoms)) :-
    % a temporary module per program: modules that stay make every later load slower
    in_temporary_module(Module,
        setup_call_cleanup(
            open_string(Text, Stream),
            load_files(Module:naf_program, [stream(Stream), silent(true)]),
            close(Stream)),
        ( maplist(tabled_value(Module), Atoms, Values), abolish_all_tables )),
    reply(Values).

handle(fixpoint(Rules, Atoms)) :-
    gamma(Rules, [], Possible0),
    alternate(Rules, [], Possible0, True, Possible),
    maplist(fixpoint_value(True, Possible), Atoms, Values),
    reply(Values).

reply(Values) :-
    atomic_list_concat(Values, Codes),
    format("ok ~w~n", [Codes]).

% call_delays/2 succeeds with a non-empty delay list exactly when the answer is undefined.
% It appends its delays to a global delay list that only backtracking restores; committing to its
% answer in a server that never backtracks makes that list grow without end (slower loads, then
% stack overflows in '$wfs_call'), so each call runs inside findall/3.
tabled_value(Module, Atom, Value) :-
    findall(Delays, call_delays(Module:Atom, Delays), Answers),
    (   Answers == [] -> Value = f
    ;   memberchk(true, Answers) -> Value = t
    ;   Value = u
    ).

% True = Γ(Possible), Possible = Γ(True), from True = {} until both stop changing.
alternate(Rules, True0, Possible0, True, Possible) :-
    gamma(Rules, Possible0, True1),
    gamma(Rules, True1, Possible1),
    (   True1 == True0, Possible1 == Possible0
    ->  True = True1, Possible = Possible1
    ;   alternate(Rules, True1, Possible1, True, Possible)
    ).

% Γ(I): least model of the reduct of the rules by I (ordered sets).
gamma(Rules, I, Model) :-
    least_model(Rules, I, [], Model).

least_model(Rules, I, Model0, Model) :-
    findall(Head,
            ( member(r(Head, Positive, Negative), Rules),
              \+ ( member(N, Negative), ord_memberchk(N, I) ),
              \+ ( member(P, Positive), \+ ord_memberchk(P, Model0) ) ),
            Heads),
    sort(Heads, Derived),
    ord_union(Model0, Derived, Model1),
    (   Model1 == Model0
    ->  Model = Model0
    ;   least_model(Rules, I, Model1, Model)
    ).

fixpoint_value(True, Possible, Atom, Value) :-
    (   ord_memberchk(Atom, True) -> Value = t
    ;   ord_memberchk(Atom, Possible) -> Value = u
    ;   Value = f
    ).

reply_error(Error) :-
    format("error ~q~n", [Error]).
