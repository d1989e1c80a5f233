Creator "hand-made"
graph [
  directed 1
  node [ id 1 label "a.b" url "http://A.com/x" value 0 ]
  node [ id 2 label "a" url "http://b.org/" ]
  node [ id 3 label "c" url "http://a.com/y" value 1 ]
  edge [ source 1 target 2 ]
  edge [ source 2 target 3 weight 1.5 ]
  edge [ source 3 target 1 ]
  edge [ source 3 target 3 ]
]
