; A ferry carrying cars between ports, one car at a time. Negative preconditions: the ferry
; sails only when not already at the destination (no equality needed) and boards only when
; empty. Action costs: sailing costs the route's length (a static function), boarding and
; leaving cost 1.
(define (domain ferry)
  (:requirements :strips :typing :negative-preconditions :action-costs)
  (:types car port)
  (:predicates (at-ferry ?p - port) (at ?c - car ?p - port) (on ?c - car) (loaded) (route ?a ?b - port))
  (:functions (total-cost) - number (length ?a ?b - port) - number)
  (:action sail
    :parameters (?from ?to - port)
    :precondition (and (at-ferry ?from) (route ?from ?to) (not (at-ferry ?to)))
    :effect (and (at-ferry ?to) (not (at-ferry ?from)) (increase (total-cost) (length ?from ?to))))
  (:action board
    :parameters (?c - car ?p - port)
    :precondition (and (at ?c ?p) (at-ferry ?p) (not (loaded)))
    :effect (and (on ?c) (loaded) (not (at ?c ?p)) (increase (total-cost) 1)))
  (:action debark
    :parameters (?c - car ?p - port)
    :precondition (and (on ?c) (at-ferry ?p))
    :effect (and (at ?c ?p) (not (on ?c)) (not (loaded)) (increase (total-cost) 1))))
