% Well-founded semantics by SWI-Prolog tabling, as a line-oriented server on stdin/stdout.
% Request:  run(Module, ProgramText, [Atom, ...]).
% Reply:    ok <one of t/f/u per atom>   or   error <message>
% Each program is compiled into a fresh module, so tables never leak between programs.

:- initialization(main, main).

main :-
    % warm-up: autoloading the tabling library must not count towards the first program's effort
    handle_quietly(run(naf_wfs_warmup, ":- module(naf_wfs_warmup, []).\n:- table a/0, b/0.\na :- tnot(b).\nb :- tnot(a).", [a, b])),
    current_prolog_flag(version_data, swi(Major, Minor, Patch, _)),
    format("ready ~w.~w.~w~n", [Major, Minor, Patch]),
    flush_output,
    serve.

serve :-
    read_term(user_input, Request, []),
    (   Request == end_of_file
    ->  true
    ;   catch(handle(Request), Error, reply_error(Error)),
        flush_output,
        serve
    ).

handle(run(Module, Text, Atoms)) :-
    setup_call_cleanup(
        open_string(Text, Stream),
        load_files(Module, [stream(Stream), silent(true)]),
        close(Stream)),
    maplist(wfs_value(Module), Atoms, Values),
    atomic_list_concat(Values, Codes),
    format("ok ~w~n", [Codes]),
    abolish_all_tables.

handle_quietly(Request) :-
    with_output_to(string(_), handle(Request)).

% call_delays/2 succeeds with a non-empty delay list exactly when the answer is undefined.
% Each atom is evaluated from empty tables, as the leader of its own evaluation: SWI-Prolog 9.0 does
% not implement answer completion, and answers of non-leader subgoals completed in a larger SCC can
% come out undefined when they are true or false (seen on random programs).
wfs_value(Module, Atom, Value) :-
    abolish_all_tables,
    (   call_delays(Module:Atom, Delays)
    ->  ( Delays == true -> Value = t ; Value = u )
    ;   Value = f
    ).

reply_error(Error) :-
    message_to_codes(Error, Text),
    format("error ~s~n", [Text]).

message_to_codes(Error, Codes) :-
    (   catch(message_to_codes(Error, _, Codes0), _, fail)
    ->  Codes = Codes0
    ;   format(codes(Codes), "~q", [Error])
    ).
