// The GraphQL server of examples/graphql: graphql-js (the reference implementation), served by
// graphql-http (the GraphQL over HTTP reference server) with Relay connections from graphql-relay,
// all three pinned in examples/peers/package-lock.json.
//   node server.js PORT [ORDERS_JSON]      modules found through NODE_PATH (examples/README.md)
// Query:    orders(first, after): OrderConnection  (edges { cursor node }, pageInfo)
// Mutation: addOrder(customer, total): Order; setStatus(id, status): Order; deleteOrder(id): Boolean
'use strict';
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const {
  GraphQLSchema, GraphQLObjectType, GraphQLNonNull, GraphQLID, GraphQLString, GraphQLFloat,
  GraphQLBoolean,
} = require('graphql');
const { createHandler } = require('graphql-http/lib/use/http');
const { connectionDefinitions, connectionArgs, connectionFromArray } = require('graphql-relay');

const port = Number(process.argv[2] || 4000);
const seed = process.argv[3] || path.join(__dirname, 'orders.json');
// In memory: every start begins from the seed, in creation order.
const orders = JSON.parse(fs.readFileSync(seed, 'utf8'));
let nextId = orders.length + 1;

const Order = new GraphQLObjectType({
  name: 'Order',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID) },
    customer: { type: GraphQLString },
    status: { type: GraphQLString },
    total: { type: GraphQLFloat },
  },
});
const { connectionType: OrderConnection } = connectionDefinitions({ nodeType: Order });

const byId = (id) => {
  const order = orders.find((o) => o.id === id);
  if (!order) throw new Error(`no order ${id}`);
  return order;
};

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      orders: {
        type: new GraphQLNonNull(OrderConnection),
        args: connectionArgs,
        resolve: (_, args) => connectionFromArray(orders, args),
      },
    },
  }),
  mutation: new GraphQLObjectType({
    name: 'Mutation',
    fields: {
      addOrder: {
        type: Order,
        args: { customer: { type: GraphQLString }, total: { type: GraphQLFloat } },
        resolve: (_, { customer, total }) => {
          const order = { id: `o-${nextId++}`, customer, status: 'new', total };
          orders.push(order);
          return order;
        },
      },
      setStatus: {
        type: Order,
        args: { id: { type: new GraphQLNonNull(GraphQLID) }, status: { type: GraphQLString } },
        resolve: (_, { id, status }) => Object.assign(byId(id), { status }),
      },
      deleteOrder: {
        type: GraphQLBoolean,
        args: { id: { type: new GraphQLNonNull(GraphQLID) } },
        resolve: (_, { id }) => orders.splice(orders.indexOf(byId(id)), 1).length === 1,
      },
    },
  }),
});

const handler = createHandler({ schema });
http
  .createServer((req, res) => {
    if (req.url.startsWith('/graphql')) return handler(req, res);
    res.writeHead(404).end();
  })
  .listen(port, '127.0.0.1', () => console.log(`GraphQL on http://127.0.0.1:${port}/graphql`));
