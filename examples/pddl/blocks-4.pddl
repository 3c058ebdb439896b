; The tower D C B A (A on top) turned upside down.
(define (problem blocks-4)
  (:domain blocksworld)
  (:objects a b c d - block)
  (:init (ontable d) (on c d) (on b c) (on a b) (clear a) (handempty))
  (:goal (and (on d c) (on c b) (on b a) (ontable a))))
