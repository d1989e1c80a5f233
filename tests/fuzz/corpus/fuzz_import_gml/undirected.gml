graph [
 node [ id "x" label "a" ]
 node [ id "y" label "b" ] # comment
 edge [ source "x" target "y" ]
 other [ a [ b 1 ] ]
]
